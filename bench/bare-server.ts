/**
 * The ceiling of the bench: a bare `node:http` server that answers precomputed bytes. A GET of a
 * scenario's path answers its body at once; a POST reads the whole request body, then answers the
 * precomputed created object. Anything else is a 404. No validation, no state, no logging.
 */
import { createServer, type Server } from 'node:http';
import type { Scenario } from './scenarios.js';

interface Precomputed {
  status: number;
  body: Buffer;
  headers: Record<string, string | number>;
}

export function createBareServer(scenarios: readonly Scenario[]): Server {
  const answers = new Map<string, Precomputed>();
  for (const scenario of scenarios) {
    const body = Buffer.from(scenario.bareAnswer);
    answers.set(`${scenario.method} ${scenario.path}`, {
      status: scenario.expectStatus,
      body,
      headers: { 'content-type': 'application/json', 'content-length': body.length },
    });
  }
  const notFound = Buffer.from('{"title":"Not found"}');
  return createServer((req, res) => {
    const answer = answers.get(`${req.method ?? ''} ${req.url ?? ''}`);
    const reply = (): void => {
      if (answer) res.writeHead(answer.status, answer.headers).end(answer.body);
      else res.writeHead(404, { 'content-type': 'application/json', 'content-length': notFound.length }).end(notFound);
    };
    if (req.method === 'GET' || req.method === 'HEAD') {
      reply();
      return;
    }
    req.on('end', reply);
    req.resume();
  });
}
