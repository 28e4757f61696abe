/** The Host check, and what an absolute-form target must name in proxy mode (`namesThisServer`). */
import assert from 'node:assert/strict';
import { hostAllowed, hostPolicy, namesThisServer } from './host.js';

describe('mock/host', () => {
  const policy = hostPolicy('127.0.0.1', ['mock.test']);
  const local = { localAddress: '127.0.0.1', localPort: 4010 };

  it('the Host check takes loopback names, any IP literal and allowed names, whatever the port', () => {
    for (const host of ['localhost:1', '127.0.0.2:9999', '[::1]', 'mock.test', 'MOCK.TEST.:80']) assert.ok(hostAllowed(policy, host), host);
    assert.ok(!hostAllowed(policy, 'evil.test'));
  });

  it('an absolute-form target names this server only by its own address and port, or a name of the policy with that port', () => {
    for (const authority of ['127.0.0.1:4010', 'localhost:4010', 'LOCALHOST.:4010', 'mock.test:4010'])
      assert.ok(namesThisServer(policy, 'http', authority, local), authority);
    assert.ok(namesThisServer(policy, 'http', '127.0.0.1:4010', { localAddress: '::ffff:127.0.0.1', localPort: 4010 }), 'IPv4-mapped');
    assert.ok(namesThisServer(policy, 'http', '[::1]:4010', { localAddress: '::1', localPort: 4010 }), 'IPv6');
    assert.ok(namesThisServer(policy, 'http', 'localhost', { localAddress: '127.0.0.1', localPort: 80 }), 'port 80 by default');
    for (const [scheme, authority] of [
      ['http', '127.0.0.2:4010'],
      ['http', '127.0.0.1:9999'],
      ['http', '127.0.0.1'],
      ['http', 'evil.test:4010'],
      ['http', 'user@127.0.0.1:4010'],
      ['http', '127.0.0.1:4010x'],
      ['http', '[::1]:4010'],
      ['https', '127.0.0.1:4010'],
    ] as const)
      assert.ok(!namesThisServer(policy, scheme, authority, local), `${scheme}://${authority}`);
  });
});
