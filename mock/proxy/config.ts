/** The configuration of `goods-mock --proxy URL` (part of MockConfig; parsed by mock/cli-args.ts). */
import type { Level } from '../../contract/levels.js';
import type { JudgingLimits } from './judging-queue.js';

export interface ProxyConfig {
  /** The server every API request is forwarded to, e.g. `https://staging.example/api` (a path prefix is kept). */
  upstream: string;
  /** The judgments applied: `spec` (only what the specification says) or `strict` (plus the profile). */
  level: Level;
  /** `--record DIR`: where order-info answers that pass the strict judgments are written as fixtures. */
  recordDir?: string;
  /**
   * `--output DIR`: where the JSON and JUnit reports are written, on POST /__mock/report and on every
   * stop. Without it: into DEFAULT_OUTPUT_DIR, on POST /__mock/report, and on stop only when an
   * exchange was judged (a proxy that saw nothing leaves no folder behind).
   */
  outputDir?: string;
  /** Exchanges with violations kept for `GET /__mock/violations` (the latest ones). */
  keep: number;
  /** Characters of each body kept in those exchanges. */
  bodyChars: number;
  /** Most time to wait for the upstream's answer (then 504). */
  timeoutMs: number;
  /**
   * Exchanges (and bytes of their bodies) waiting to be judged at most; an exchange past them is
   * forwarded but not judged, and counted. Default `DEFAULT_JUDGING_LIMITS` (1,000 exchanges, 64 MiB).
   */
  judging?: JudgingLimits;
}

export const DEFAULT_PROXY: Omit<ProxyConfig, 'upstream'> = {
  level: 'spec',
  keep: 50,
  bodyChars: 2048,
  timeoutMs: 30_000,
};

/** Where the reports go without `--output` (relative to the current folder). */
export const DEFAULT_OUTPUT_DIR = 'reports';

/** The report files written into `outputDir`. */
export const REPORT_FILES = { json: 'proxy-report.json', junit: 'proxy-junit.xml' } as const;
