/**
 * Child-process entry of the validating proxy for the bench: `goods-mock --proxy` through the public
 * API (`createMockServer` with a `proxy` config) in front of `--upstream URL` (the bare server), at
 * `--level` (default spec), request lines off, violations logged on stderr. Prints its URL on stdout;
 * stops on SIGTERM/SIGINT or when the parent goes away (its reports go to a temporary folder).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isLevel } from '../contract/levels.js';
import { createMockServer } from '../mock/index.js';
import { DEFAULT_PROXY } from '../mock/proxy/config.js';
import { stopOnSignals } from './child-stop.js';

const { values } = parseArgs({ options: { upstream: { type: 'string' }, level: { type: 'string', default: 'spec' } }, strict: true });
if (values.upstream === undefined || !isLevel(values.level)) {
  process.stderr.write('usage: proxy-server-child --upstream URL [--level spec|strict]\n');
  process.exit(2);
}
const server = await createMockServer({
  host: '127.0.0.1',
  port: 0,
  quiet: true,
  proxy: { ...DEFAULT_PROXY, upstream: values.upstream, level: values.level, outputDir: mkdtempSync(join(tmpdir(), 'goods-bench-proxy-')) },
});
process.stdout.write(`${server.url}\n`);

stopOnSignals(() => server.close());
