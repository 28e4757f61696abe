import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './body.js';
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
});
