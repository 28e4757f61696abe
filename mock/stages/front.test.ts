/**
 * The front stages the mock and the proxy share: the same request refused by the same stage
 * gets the same answer from both, and nothing reaches the upstream before every front stage passed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listen, type Loopback } from '../../support/loopback.js';
import { DEFAULT_PROXY } from '../proxy/config.js';
import type { MockServer } from '../server.js';
import { isControlPath } from './control.js';
import { ORDER_PATH, startMock } from '../testing.js';

/** Sends raw bytes and resolves with the status line and the problem type of the answer. */
function raw(server: MockServer, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, server.host);
    let text = '';
    socket.on('data', (data: Buffer) => (text += data.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(`${/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 'none'} ${/"type":"([^"]+)"/.exec(text)?.[1] ?? ''}`));
    socket.end(bytes);
  });
}

describe('mock/stages: the front stages of the pipeline', () => {
  it('the control paths are /__mock and below it, nothing else', () => {
    assert.ok(isControlPath('/__mock') && isControlPath('/__mock/health'));
    assert.ok(!isControlPath('/__mocked') && !isControlPath('/api/__mock'));
  });

  describe('the mock and the proxy in front of it answer a refused request alike', () => {
    let upstream: Loopback;
    let reached = 0;
    let mock: MockServer;
    let proxy: MockServer;
    before(async () => {
      mock = await startMock();
      upstream = await listen((req, res) => {
        reached++;
        res.end('{}');
      });
      proxy = await startMock({
        proxy: { ...DEFAULT_PROXY, outputDir: mkdtempSync(join(tmpdir(), 'stages-test-')), upstream: upstream.url },
      });
    });
    after(async () => {
      await proxy.close();
      await mock.close();
      await upstream.close();
    });

    const cases: [string, (server: MockServer) => string][] = [
      ['no version on the request line (framing)', () => `GET ${ORDER_PATH}X\r\n\r\n`],
      [
        'two Host lines (framing)',
        (s) => `GET ${ORDER_PATH}X HTTP/1.1\r\nHost: ${s.host}:${s.port}\r\nHost: other\r\nConnection: close\r\n\r\n`,
      ],
      [
        'chunked on HTTP/1.0 (framing)',
        (s) => `POST ${ORDER_PATH}X HTTP/1.0\r\nHost: ${s.host}:${s.port}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      ],
      [
        'a Host that does not name the server (target and Host)',
        () => `GET ${ORDER_PATH}X HTTP/1.1\r\nHost: rebind.example\r\nConnection: close\r\n\r\n`,
      ],
      [
        'a control path asked from a foreign origin (control paths, one stage for both)',
        (s) => `GET /__mock/health HTTP/1.1\r\nHost: ${s.host}:${s.port}\r\nOrigin: http://evil.example\r\nConnection: close\r\n\r\n`,
      ],
    ];
    for (const [label, request] of cases) {
      it(label, async () => {
        const before = reached;
        const fromMock = await raw(mock, request(mock));
        const fromProxy = await raw(proxy, request(proxy));
        assert.match(fromMock, /^4\d\d https:\/\/goods\.example\/problems\//);
        assert.equal(fromProxy, fromMock, 'the same stage answers the same problem');
        assert.equal(reached, before, 'nothing was forwarded');
      });
    }
  });
});
