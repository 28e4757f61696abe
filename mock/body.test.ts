import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody, readDecoded } from './body.js';
import { PROBLEMS, ProblemError } from './problems.js';

describe('mock/body: readBody', () => {
  it('rejects with body-incomplete (not a JSON problem) when the client closes the connection mid-body', async () => {
    let outcome: Promise<unknown> | undefined;
    const received = new Promise<void>((resolve) => {
      const server = createServer((req: IncomingMessage) => {
        outcome = readBody(req, 1024 * 1024).then(
          () => 'read',
          (error: unknown) => error,
        );
        resolve();
        void outcome.finally(() => server.close());
      });
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        const client = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'content-length': '100' } });
        client.on('error', () => undefined);
        client.write('{"half": ', () => setTimeout(() => client.destroy(), 50));
      });
    });
    await received;
    const error = await outcome;
    assert.ok(error instanceof ProblemError, String(error));
    assert.equal(error.kind, PROBLEMS.bodyIncomplete);
    assert.match(error.detail, /client closed the connection/);
  });

  it('readDecoded answers what decode makes of the body, and rejects with what decode throws', async () => {
    const outcomes: Promise<unknown>[] = [];
    const server = createServer((req, res) => {
      const decoded = readDecoded(req, 1024, undefined, (body) => {
        const text = body.toString('utf8');
        if (text === 'bad') throw new Error('not wanted');
        return text.toUpperCase();
      });
      outcomes.push(
        decoded.then(
          (value) => value,
          (error: unknown) => error,
        ),
      );
      void decoded.finally(() => res.end()).catch(() => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    for (const body of ['fine', 'bad']) await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body });
    server.close();
    const [fine, bad] = await Promise.all(outcomes);
    assert.equal(fine, 'FINE');
    assert.ok(bad instanceof Error);
    assert.equal(bad.message, 'not wanted');
  });
});
