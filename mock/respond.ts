/** Writing answers: JSON bodies, problem+json bodies, and pre-serialized bodies. */
import type { ServerResponse } from 'node:http';
import type { ProblemError } from './problems.js';

export function sendBody(
  res: ServerResponse,
  status: number,
  contentType: string | undefined,
  body: Buffer | string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (contentType !== undefined) res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.statusCode = status;
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers?: Record<string, string>): void {
  sendBody(res, status, 'application/json', JSON.stringify(value), headers);
}

export function sendProblem(res: ServerResponse, error: ProblemError): void {
  sendBody(res, error.kind.status, 'application/problem+json', JSON.stringify(error.body()), error.headers);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.statusCode = status;
  res.end();
}
