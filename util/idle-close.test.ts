import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { closeIdleWhenQuiet } from './idle-close.js';

describe('util/idle-close: a kept-alive connection closed at its idle limit only when quiet', function () {
  this.timeout(10_000);

  it('answers a request that came during a stall past the limit, and still closes a quiet connection', async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    server.keepAliveTimeout = 200;
    closeIdleWhenQuiet(server);
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    try {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      await once(socket, 'connect');
      let received = '';
      let failure: string | undefined;
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => (received += chunk));
      socket.on('error', (error: NodeJS.ErrnoException) => (failure ??= error.code ?? error.message));
      const closed = once(socket, 'close');
      const post = 'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}';
      socket.write(post);
      while (!received.endsWith('ok')) await sleep(5);
      // A stall past the limit (and the second Node's timer allows), then a request at once.
      const until = performance.now() + 1_500;
      while (performance.now() < until);
      socket.write(post);
      await Promise.race([closed, sleep(5_000).then(() => assert.fail('the quiet connection was not closed'))]);
      assert.equal(failure, undefined, 'not reset');
      assert.equal(received.match(/HTTP\/1\.1 200 /g)?.length, 2, received);
    } finally {
      server.close();
    }
  });
});
