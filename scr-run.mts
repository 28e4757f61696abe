import { resolveConformanceConfig } from '/work/main/conformance/config.js';
import { runConformance } from '/work/main/conformance/run.js';
const level = (process.argv[2] ?? 'strict') as 'spec' | 'strict';
const t0 = Date.now();
const { verdict, requests, exitCode } = await runConformance(resolveConformanceConfig({ level, seed: 7, outputDir: '/tmp/scr/reports' }), { write: () => undefined });
console.log('exit', exitCode, 'requests', requests.length, 'ms', Date.now() - t0, 'writes', verdict.writes);
for (const c of verdict.checks) if (c.status !== 'passed') console.log(c.status, c.id, JSON.stringify(c.cases.filter((x) => x.status !== 'passed').slice(0, 3)).slice(0, 600));
