/**
 * `goods-mock --proxy URL`: the same bin, dashboard and `/__mock`, but every API request is forwarded
 * to URL and its answer returned unchanged (forward.ts); each exchange is then judged (judge.ts) and
 * its violations logged (one line each), counted and kept (violations.ts), optionally recorded as a
 * fixture (recorder.ts); the reports are written on `POST /__mock/report` and on stop, when an exchange
 * was judged or `--output` was given (report.ts).
 * Nothing is recorded in the mock's own state. Judging runs after the answer was sent, off its path:
 * the exchange waits on a bounded queue (judging-queue.ts) judged in batches between turns of the
 * event loop; one that does not fit is forwarded unjudged and counted. The listing, the reports and
 * the stop judge what is waiting first, so they cover every exchange answered before them.
 */
import { resolve } from 'node:path';
import { readContractFile } from '../../contract/document.js';
import { CONTRACT_JSON_PATH, shownPath } from '../../contract/paths.js';
import type { MockApp } from '../app.js';
import type { MockConfig } from '../config.js';
import { controlPolicy } from '../control-guard.js';
import { hostPolicy } from '../host.js';
import { pipelineHandler, stageList } from '../pipeline.js';
import { controlStage } from '../stages/control.js';
import { framingStage } from '../stages/framing.js';
import { targetStage } from '../stages/target.js';
import { DEFAULT_OUTPUT_DIR, type ProxyConfig } from './config.js';
import type { ProxyExchange, Violation } from './exchange.js';
import { proxyAdmin, REPORT_PATH } from './admin.js';
import { createForwarder } from './forward.js';
import { createJudge } from './judge.js';
import { DEFAULT_JUDGING_LIMITS, JudgingQueue } from './judging-queue.js';
import { Recorder } from './recorder.js';
import { escapeControlsUnicode, LearningRedactor, type Redactor } from '../../redaction/redactor.js';
import { notJudgedText, writeReports } from './report.js';
import type { SeenExchange } from './seen.js';
import { ViolationLog } from './violations.js';
import { proxyRequestExchange, type ProxyRequestExchange } from './stages/exchange.js';
import { forwardStage } from './stages/forward.js';
import { thisServerStage } from './stages/this-server.js';
import { messageOf } from '../../util/errors.js';

const NOT_JUDGED = new Set(['OPTIONS', 'HEAD']);
/** Credentials the proxy keeps hiding: the latest ones win. */
const MAX_LEARNT_SECRETS = 256;
/** While the judging queue overflows, one log line this often at most (the count since the last one). */
const NOT_JUDGED_LOG_INTERVAL_MS = 10_000;

/** The upstream URL without userinfo (for logs, reports and the dashboard). */
export function publicUrl(url: URL): string {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href.replace(/\/$/, '');
}

/** One log line per violation: side, operation, rule, where, reason (and the request it came from). */
export function violationLine(v: Violation, exchange: ProxyExchange, redactor: Redactor): string {
  const where = v.in === 'body' ? `body ${v.pointer === '' ? '""' : v.pointer}` : v.in === 'header' ? `header ${v.pointer}` : v.in;
  const target = redactor.redact(exchange.target).slice(0, 120);
  return escapeControlsUnicode(
    redactor.redact(
      `proxy: ${v.side} violation ${v.operation} ${v.rule} [${v.level}] ${where}: ${v.reason} (${exchange.method} ${target} → ${exchange.answer.status})`,
    ),
  );
}

export function createProxyApp(config: MockConfig, proxy: ProxyConfig): Promise<MockApp> {
  const log = config.log;
  const upstream = new URL(proxy.upstream);
  // Learnt from traffic: the latest secrets, whole (a piece of one is not hidden: too many texts to scan).
  const redactor = new LearningRedactor({ pieces: false, maxSecrets: MAX_LEARNT_SECRETS });
  if (upstream.password !== '') redactor.learn(decodeURIComponent(upstream.password));
  // Read once: the document judged against, and the file and SHA-256 the reports name.
  const contractFile = readContractFile(config.contractPath ?? CONTRACT_JSON_PATH);
  const document = contractFile.document;
  const contract = { path: shownPath(contractFile.path), sha256: contractFile.sha256 };
  const judge = createJudge(document, proxy.level);
  const violations = new ViolationLog({
    level: proxy.level,
    upstream: publicUrl(upstream),
    keep: proxy.keep,
    bodyChars: proxy.bodyChars,
    redactor,
  });
  const recorder = proxy.recordDir !== undefined ? new Recorder({ dir: proxy.recordDir, judge, redactor, log }) : undefined;
  const forwarder = createForwarder({
    upstream,
    timeoutMs: proxy.timeoutMs,
    log: (line) => log(escapeControlsUnicode(redactor.redact(line))),
  });
  const outputDir = proxy.outputDir ?? DEFAULT_OUTPUT_DIR;
  const report = () =>
    writeReports({
      dir: outputDir,
      violations,
      judge,
      redactor,
      upstream: publicUrl(upstream),
      contract,
      recorded: recorder?.recorded ?? 0,
    });

  /** Judges one exchange (from the judging queue, after its answer was sent). */
  const judged = (seen: SeenExchange): void => {
    // A path the contract does not have may be one of the server's further operations (the specification
    // says they exist, unshown): forwarded, not judged.
    if (!judge.pathInContract(seen.target, seen.method)) return;
    const exchange = seen.exchange();
    redactor.learnAuthorization(exchange.request.headers['authorization']);
    redactor.learnFromText(exchange.target);
    if (exchange.request.body.length > 0) redactor.learnFromText(exchange.request.body.subarray(0, 64 * 1024).toString('utf8'));
    const operation = judge.operationOf(exchange.method, exchange.target);
    const found = judge.judge(exchange);
    violations.add(exchange, operation, found);
    recorder?.consider(exchange, operation);
    for (const v of found) log(violationLine(v, exchange, redactor));
  };

  const limits = proxy.judging ?? DEFAULT_JUDGING_LIMITS;
  let notJudgedSinceLine = 0;
  let lastNotJudgedLine = Number.NEGATIVE_INFINITY;
  const queue = new JudgingQueue<SeenExchange>({
    limits,
    judge: judged,
    onError: (error, seen) =>
      log(
        `proxy: internal error while judging ${escapeControlsUnicode(seen.method)} ${escapeControlsUnicode(redactor.redact(seen.target)).slice(0, 200)}: ${error instanceof Error && error.stack !== undefined ? error.stack : messageOf(error)}`,
      ),
    onDrop: (seen) => {
      if (NOT_JUDGED.has(seen.method) || !judge.pathInContract(seen.target)) return;
      violations.countNotJudged();
      notJudgedSinceLine++;
      const now = Date.now();
      if (now - lastNotJudgedLine < NOT_JUDGED_LOG_INTERVAL_MS) return;
      log(
        `proxy: the judging queue is full (${limits.exchanges} exchanges or ${Math.round(limits.bytes / 1024)} KiB of bodies waiting): ${notJudgedSinceLine} exchange(s) forwarded but not judged since the last such line; /__mock/violations (notJudged) and the reports count them`,
      );
      lastNotJudgedLine = now;
      notJudgedSinceLine = 0;
    },
  });
  /** Queues an exchange whose answer was delivered whole; CORS preflights and HEAD requests are HTTP's, not the contract's operations: not judged. */
  const enqueue = (seen: SeenExchange): void => {
    if (!NOT_JUDGED.has(seen.method)) queue.push(seen, seen.bytes);
  };

  const admin = proxyAdmin({
    level: proxy.level,
    upstream: publicUrl(upstream),
    adminToken: config.adminToken,
    contractPath: config.contractPath,
    drain: () => queue.drain(),
    violations: () => violations.snapshot(),
    report: async () => {
      await recorder?.flush();
      return report();
    },
  });

  // Browser safety as in mock mode: the Host must name this process (DNS rebinding), and /__mock refuses
  // foreign origins (control-guard.ts).
  const hosts = hostPolicy(config.host, config.allowedHosts);
  const control = controlPolicy(config.corsOrigins);

  /**
   * The proxy's stages of the shared pipeline (`../pipeline.ts`, `../stages/`): framing → target and
   * Host → the target names this proxy → control paths (`/__mock`, behind the browser guard) → forward.
   */
  const stages = stageList<ProxyRequestExchange>()
    .add(framingStage())
    .add(targetStage({ hosts }))
    .add(thisServerStage({ hosts }))
    .add(controlStage({ policy: control, answer: admin }))
    .add(forwardStage({ forwarder, seen: enqueue }));

  const handle = pipelineHandler<ProxyRequestExchange>({
    stages,
    exchange: proxyRequestExchange,
    log: (line) => log(escapeControlsUnicode(line)),
    quiet: config.quiet,
    who: 'proxy',
    // The target as logged: learned secrets hidden.
    shownTarget: (req) => redactor.redact(req.url ?? ''),
    note: (x) => (x.forwarded ? ' (proxied)' : ''),
  });

  let closing: Promise<void> | undefined;
  return Promise.resolve({
    handle,
    orderNumbers: [],
    lotIds: [],
    prismOperations: [],
    resources: [],
    close() {
      closing ??= (async () => {
        await forwarder.close();
        queue.drain();
        await recorder?.flush();
        const { total, exchanges, notJudged } = violations.snapshot();
        // Written when there is something to report, or when asked (an explicit --output).
        if (exchanges === 0 && notJudged === 0 && proxy.outputDir === undefined) {
          log(
            `proxy: no reports written: no exchange of the contract's operations went through the proxy (with --output DIR they are written on every stop; POST ${REPORT_PATH} writes them at any time)`,
          );
          return;
        }
        try {
          const files = await report();
          const unjudged = notJudged > 0 ? `; ${notJudgedText(notJudged)}` : '';
          log(`proxy: ${total} violation(s) in ${exchanges} exchange(s)${unjudged}; reports written: ${files.join(', ')}`);
        } catch (error) {
          log(`proxy: cannot write the reports into ${resolve(outputDir)}: ${messageOf(error)}`);
        }
      })();
      return closing;
    },
  });
}
