/**
 * TLS trust: a certificate the run does not trust is a configuration error (exit 2: the reason and
 * the fix, before any check); `--ca FILE` (a PEM bundle) trusts a private CA, or a server's self-signed
 * certificate, for the run. A private CA and its server certificates are made here with openssl, on
 * loopback only.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCa } from './ca-option.js';
import { CHECKS } from './checks/index.js';
import { resolveConformanceConfig } from './config.js';
import { runConformance } from './run.js';
import { REFERENCE_TOKEN, startReferenceServer, type ReferenceServer } from './self-test/reference-server.js';
import { StartError } from './start-error.js';

const TESTING = join(import.meta.dirname, 'testing');

function openssl(dir: string, args: string[]): void {
  const run = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  assert.equal(run.status, 0, `openssl ${args.join(' ')}: ${run.error?.message ?? run.stderr}`);
}

/** A private CA and two server certificates it signed: one for 127.0.0.1, one for another host only. */
function makePki(dir: string): void {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(dir, [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=Conformance Test Company CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  for (const [name, san] of [
    ['loopback', 'IP:127.0.0.1'],
    ['elsewhere', 'DNS:elsewhere.example'],
  ] as const) {
    openssl(dir, ['req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
    writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    ]);
  }
}

describe('TLS trust: an untrusted certificate is exit 2; --ca FILE trusts a private CA', function () {
  this.timeout(20_000);
  let dir = '';
  const servers: ReferenceServer[] = [];
  const serve = async (key: string, cert: string): Promise<string> => {
    const server = await startReferenceServer([], { tls: { key: readFileSync(key), cert: readFileSync(cert) } });
    servers.push(server);
    return server.url;
  };
  const quiet = { write: () => undefined };
  // The runs that get through send the order checks only: every request is a new TLS handshake (about 13 ms here).
  const orderChecks = { ...quiet, checks: CHECKS.filter((c) => c.operations[0] === 'getOrderInfo') };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'conformance-ca-'));
    makePki(dir);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('--ca FILE: every certificate of a PEM bundle; a missing file, a file without certificates, a broken one: exit 2 naming --ca', () => {
    const bundle = join(dir, 'bundle.pem');
    writeFileSync(
      bundle,
      `# company CAs\n${readFileSync(join(dir, 'ca.pem'), 'utf8')}\n${readFileSync(join(TESTING, 'tls-test-cert.pem'), 'utf8')}`,
    );
    assert.equal(loadCa(bundle).certificates.length, 2);
    const refused = (path: string, reason: RegExp): void =>
      assert.throws(
        () => loadCa(path),
        (error: unknown) => error instanceof StartError && reason.test(error.reason) && error.fix.startsWith('pass --ca with a PEM file'),
      );
    refused(join(dir, 'missing.pem'), /^cannot read --ca .*missing\.pem: ENOENT$/);
    writeFileSync(join(dir, 'empty.pem'), 'no certificate here\n');
    refused(join(dir, 'empty.pem'), /^--ca .*empty\.pem holds no PEM certificate$/);
    writeFileSync(join(dir, 'broken.pem'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    refused(join(dir, 'broken.pem'), /^--ca .*broken\.pem: certificate 1 of 1 cannot be read/);
  });

  it('a server certificate of a private CA: exit 2 (StartError) naming --ca; with --ca the checks run and pass', async () => {
    const url = await serve(join(dir, 'loopback.key'), join(dir, 'loopback.pem'));
    await assert.rejects(
      runConformance(resolveConformanceConfig({ baseUrl: url, token: REFERENCE_TOKEN }), quiet),
      (error: unknown) =>
        error instanceof StartError &&
        error.reason ===
          `the TLS certificate of ${url} is not trusted (unable to verify the first certificate (UNABLE_TO_VERIFY_LEAF_SIGNATURE))` &&
        error.fix === 'pass --ca FILE with the PEM certificate of the CA that signed it (e.g. your company CA)',
    );
    let text = '';
    const caPath = join(dir, 'ca.pem');
    const { exitCode } = await runConformance(resolveConformanceConfig({ baseUrl: url, token: REFERENCE_TOKEN, caPath }), {
      ...orderChecks,
      write: (t) => void (text += t),
    });
    assert.equal(exitCode, 0, text);
    assert.ok(text.split('\n')[0]?.endsWith(`, trusting the CA certificates of --ca ${caPath} too`), text.split('\n')[0]);
  });

  it("a server's self-signed certificate: exit 2 naming --ca; trusted with --ca naming that certificate", async () => {
    const cert = join(TESTING, 'tls-test-cert.pem');
    const url = await serve(join(TESTING, 'tls-test-key.pem'), cert);
    await assert.rejects(
      runConformance(resolveConformanceConfig({ baseUrl: url, token: REFERENCE_TOKEN }), quiet),
      (error: unknown) =>
        error instanceof StartError && /not trusted \(self-signed certificate \(DEPTH_ZERO_SELF_SIGNED_CERT\)\)$/.test(error.reason),
    );
    const { exitCode } = await runConformance(
      resolveConformanceConfig({ baseUrl: url, token: REFERENCE_TOKEN, caPath: cert }),
      orderChecks,
    );
    assert.equal(exitCode, 0);
  });

  it('a certificate for another host: exit 2 even with --ca, naming --base-url (trust does not change the host)', async () => {
    const url = await serve(join(dir, 'elsewhere.key'), join(dir, 'elsewhere.pem'));
    await assert.rejects(
      runConformance(resolveConformanceConfig({ baseUrl: url, token: REFERENCE_TOKEN, caPath: join(dir, 'ca.pem') }), quiet),
      (error: unknown) =>
        error instanceof StartError &&
        /^the TLS certificate of https:\/\/127\.0\.0\.1:\d+ does not name its host \(.*ERR_TLS_CERT_ALTNAME_INVALID\)\)$/.test(
          error.reason,
        ) &&
        error.fix.startsWith('use in --base-url a host name the certificate names'),
    );
  });
});
