/**
 * Child-process entry of the floor: the least a reverse proxy on this runtime does, `node:http` in
 * front of undici's `Pool` (keep-alive, pipelining 1, as the validating proxy forwards), with no
 * judging, no recording and no problem answers. The validating proxy is measured against it in the
 * same run, so its targets say what our code costs, not what a second HTTP hop costs on the machine.
 * `--upstream URL`; prints its URL on stdout; stops on SIGTERM/SIGINT or when the parent goes away.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { stopOnSignals } from './child-stop.js';

const { values } = parseArgs({ options: { upstream: { type: 'string' } }, strict: true });
if (values.upstream === undefined) {
  process.stderr.write('usage: floor-server-child --upstream URL\n');
  process.exit(2);
}
const pool = new Pool(values.upstream, { connections: 256, pipelining: 1 });
const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'host'];
const endToEnd = (headers: IncomingHttpHeaders): IncomingHttpHeaders => {
  const kept = { ...headers };
  for (const name of HOP_BY_HOP) delete kept[name];
  return kept;
};

// The bench sends GET and POST only.
const server = createServer((req, res) => {
  const body = req.method === 'GET' || req.method === 'HEAD' ? null : req;
  pool
    .stream({ path: req.url ?? '/', method: req.method === 'POST' ? 'POST' : 'GET', headers: endToEnd(req.headers), body }, (answer) => {
      res.writeHead(answer.statusCode, endToEnd(answer.headers));
      return res;
    })
    .catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);

stopOnSignals(async () => {
  server.closeAllConnections();
  await Promise.all([new Promise<void>((resolve) => server.close(() => resolve())), pool.close()]);
});
