/**
 * Small purpose-built broken servers for running the conformance suite against: garbage (not
 * JSON), hang (never answer), reset (destroy the connection), huge (a 100 MiB streamed body), wrong
 * content types. Each counts what it did, so a test can see the suite stopped reading.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { FIXTURES_DIR } from '../../../contract/paths.js';
import { listenOn } from '../../../support/loopback.js';

export type BrokenKind = 'garbage' | 'hang' | 'reset' | 'huge' | 'wrong-content-type';
export const BROKEN_KINDS: BrokenKind[] = ['garbage', 'hang', 'reset', 'huge', 'wrong-content-type'];
/** `all`: every request is answered badly; `creates`: GET of the fixture order is right (so the suite finds lots and tries creates), the rest is broken. */
export type BrokenScope = 'all' | 'creates';
export const BROKEN_ORDER = 'ORD-2026-0001';

export interface BrokenServer {
  url: string;
  kind: BrokenKind;
  requests: number;
  /** For `huge`: the most body bytes one answer got out before the client stopped reading. */
  maxBytesWritten: number;
  close(): Promise<void>;
}

const HUGE_BYTES = 100 * 1024 * 1024;

function streamHuge(res: ServerResponse, server: BrokenServer): void {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': HUGE_BYTES });
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  chunk[0] = 0x5b; // '[' then spaces: the start of a JSON text that never ends in time
  let written = 0;
  res.on('error', () => undefined);
  const pump = (): void => {
    while (written < HUGE_BYTES && !res.destroyed) {
      written += chunk.length;
      server.maxBytesWritten = Math.max(server.maxBytesWritten, written);
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

function answer(kind: BrokenKind, server: BrokenServer, req: IncomingMessage, res: ServerResponse): void {
  switch (kind) {
    case 'garbage':
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('<html>\u0000\u00ff not json at all');
      return;
    case 'hang':
      return; // never answers; the connection stays open until the client gives up
    case 'reset':
      req.socket.destroy();
      return;
    case 'huge':
      streamHuge(res, server);
      return;
    case 'wrong-content-type': {
      const isCreate = (req.url ?? '').includes('/create');
      const body = isCreate ? '{"id":1}' : '{"order":{},"containers":[],"charges":[],"lots":[]}';
      res.writeHead(isCreate ? 201 : 200, { 'Content-Type': 'text/plain; charset=latin1' }).end(body);
      return;
    }
  }
}

export async function startBrokenServer(kind: BrokenKind, scope: BrokenScope = 'all'): Promise<BrokenServer> {
  const order = readFileSync(join(FIXTURES_DIR, `${BROKEN_ORDER}.json`));
  const server = createServer((req, res) => {
    state.requests++;
    req.resume();
    if (scope === 'creates' && req.method === 'GET' && req.url === `/manualProduction/rest/v1/orders/info/${BROKEN_ORDER}`) {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(order);
      return;
    }
    answer(kind, state, req, res);
  });
  const state: BrokenServer = { url: '', kind, requests: 0, maxBytesWritten: 0, close: () => Promise.resolve() };
  const listening = await listenOn(server);
  state.url = listening.url;
  state.close = listening.close;
  return state;
}
