/** The delaying proxy of the time-to-verdict table: every answer (errors too) comes after the delay, a body refused early included. */
import assert from 'node:assert/strict';
import http from 'node:http';
import { listen, type Loopback } from '../support/loopback.js';
import { startDelayingProxy } from './delaying-proxy.js';

/** An upstream that answers 200 to GET, and 413 to a large POST before reading its body. */
function upstream(): Promise<Loopback> {
  return listen((req, res) => {
    if (req.method === 'POST' && Number(req.headers['content-length']) > 1000) {
      res.writeHead(413, { 'content-type': 'application/problem+json' });
      res.end('{"status":413}');
      return;
    }
    res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'application/json' });
    res.end(`{"path":${JSON.stringify(req.url)}}`);
  });
}

function request(url: string, method: string, body?: Buffer): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: body ? { 'content-length': body.length } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('bench/delaying-proxy', () => {
  it('answers what the upstream answered, each answer (errors too) delayed, a large body refused early included', async () => {
    const up = await upstream();
    const proxy = await startDelayingProxy(up.url, 60);
    try {
      const ok = await request(`${proxy.url}/a`, 'GET');
      assert.deepEqual([ok.status, ok.text], [200, '{"path":"/a"}']);
      const missing = await request(`${proxy.url}/missing`, 'GET');
      assert.equal(missing.status, 404);
      const large = await request(`${proxy.url}/create`, 'POST', Buffer.alloc(2 * 1024 * 1024, 0x78));
      assert.equal(large.status, 413);
      for (const answer of [ok, missing, large]) assert.ok(answer.ms >= 55, `${answer.ms} ms`);
    } finally {
      await proxy.close();
      await up.close();
    }
  });
});
