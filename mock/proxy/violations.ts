/**
 * What the proxy has found, in bounded memory: counters (total, by side, by operation, by rule, by
 * rule and operation for the reports) and the latest `keep` exchanges that broke the contract, with
 * their violations, bodies cut to `bodyChars` characters and every credential redacted.
 */
import type { Level } from '../../contract/levels.js';
import type { ProxyExchange, Violation } from './exchange.js';
import { escapeControlsUnicode, type Redactor } from '../../redaction/redactor.js';

export interface KeptMessage {
  headers: Record<string, string>;
  /** The body as text, redacted, cut to the configured length. */
  body: string;
  /** The body's size in bytes (as seen; at most the judged bytes). */
  bytes: number;
  truncated: boolean;
}

export interface KeptExchange {
  /** Sequence number of the exchange since the proxy started (1, 2, ...). */
  seq: number;
  at: string;
  method: string;
  target: string;
  operation: string;
  status: number;
  durationMs: number;
  request: KeptMessage;
  answer: KeptMessage;
  violations: Violation[];
}

export interface ViolationsSnapshot {
  mode: 'proxy';
  level: Level;
  upstream: string;
  /** Exchanges judged since the start. */
  exchanges: number;
  /** Exchanges of the contract's paths forwarded but not judged: the judging queue was full (judging-queue.ts). */
  notJudged: number;
  /** Violations seen since the start (client + server). */
  total: number;
  client: number;
  server: number;
  byOperation: Record<string, number>;
  byRule: Record<string, number>;
  /** The latest exchanges with at least one violation, newest first (at most `keep`). */
  recent: KeptExchange[];
}

/** Per rule and operation: how many exchanges were judged and broke it, with the latest reasons. */
export interface RuleTally {
  rule: string;
  operation: string;
  side: Violation['side'];
  level: Level;
  violations: number;
  exchanges: number;
  latest: string[];
}

const LATEST_REASONS = 5;
/** Characters past the cut that are still redacted (longer than any form of a credential). */
const REDACTION_MARGIN = 1024;

export interface ViolationLogOptions {
  level: Level;
  upstream: string;
  keep: number;
  bodyChars: number;
  redactor: Redactor;
}

export class ViolationLog {
  private exchanges = 0;
  private notJudged = 0;
  private readonly byOperationExchanges = new Map<string, number>();
  private total = 0;
  private client = 0;
  private server = 0;
  private readonly byOperation = new Map<string, number>();
  private readonly byRule = new Map<string, number>();
  private readonly tallies = new Map<string, RuleTally>();
  private readonly recent: KeptExchange[] = [];
  readonly startedAt = new Date();

  constructor(private readonly options: ViolationLogOptions) {}

  /** Counts one judged exchange; keeps it when it broke the contract. Returns the kept (redacted) form. */
  add(exchange: ProxyExchange, operation: string, violations: Violation[]): KeptExchange | undefined {
    this.exchanges++;
    this.byOperationExchanges.set(operation, (this.byOperationExchanges.get(operation) ?? 0) + 1);
    if (violations.length === 0) return undefined;
    const redact = this.options.redactor;
    const clean = violations.map((v) => ({
      ...v,
      reason: escapeControlsUnicode(redact.redact(v.reason)),
      pointer: escapeControlsUnicode(redact.redact(v.pointer)),
    }));
    const rulesHit = new Set<string>();
    for (const v of clean) {
      this.total++;
      if (v.side === 'client') this.client++;
      else this.server++;
      this.byOperation.set(v.operation, (this.byOperation.get(v.operation) ?? 0) + 1);
      this.byRule.set(v.rule, (this.byRule.get(v.rule) ?? 0) + 1);
      const key = `${v.rule}\u0000${v.operation}`;
      const tally = this.tallies.get(key) ?? {
        rule: v.rule,
        operation: v.operation,
        side: v.side,
        level: v.level,
        violations: 0,
        exchanges: 0,
        latest: [],
      };
      tally.violations++;
      if (!rulesHit.has(key)) tally.exchanges++;
      rulesHit.add(key);
      if (v.level === 'spec') tally.level = 'spec';
      tally.latest.push(
        `${exchange.method} ${redact.redact(exchange.target)} → ${exchange.answer.status}: ${v.in}${v.pointer === '' ? '' : ` ${v.pointer}`}: ${v.reason}`,
      );
      if (tally.latest.length > LATEST_REASONS) tally.latest.shift();
      this.tallies.set(key, tally);
    }
    const kept: KeptExchange = {
      seq: this.exchanges,
      at: new Date().toISOString(),
      method: escapeControlsUnicode(exchange.method),
      target: escapeControlsUnicode(redact.redact(exchange.target)),
      operation,
      status: exchange.answer.status,
      durationMs: Math.round(exchange.durationMs * 10) / 10,
      request: this.message(exchange.request),
      answer: this.message(exchange.answer),
      violations: clean,
    };
    this.recent.push(kept);
    if (this.recent.length > this.options.keep) this.recent.shift();
    return kept;
  }

  /** Counts one exchange that was forwarded but not judged (the judging queue was full). */
  countNotJudged(): void {
    this.notJudged++;
  }

  private message(message: ProxyExchange['request']): KeptMessage {
    const redact = this.options.redactor;
    const encoding = message.headers['content-encoding'];
    // Cut first (with a margin, so a secret across the cut is still found whole), then redact, then cut again.
    const windowBytes = this.options.bodyChars * 4 + REDACTION_MARGIN;
    const window = message.body.subarray(0, windowBytes).toString('utf8');
    const raw =
      encoding !== undefined && encoding !== 'identity'
        ? `(${message.body.length} bytes, Content-Encoding ${encoding})`
        : escapeControlsUnicode(redact.redact(window));
    const truncated = raw.length > this.options.bodyChars || !message.complete || message.body.length > windowBytes;
    return {
      headers: redact.headers(message.headers),
      body: raw.length > this.options.bodyChars ? `${raw.slice(0, this.options.bodyChars)}…` : raw,
      bytes: message.body.length,
      truncated,
    };
  }

  snapshot(): ViolationsSnapshot {
    return {
      mode: 'proxy',
      level: this.options.level,
      upstream: this.options.upstream,
      exchanges: this.exchanges,
      notJudged: this.notJudged,
      total: this.total,
      client: this.client,
      server: this.server,
      byOperation: Object.fromEntries(this.byOperation),
      byRule: Object.fromEntries(this.byRule),
      recent: [...this.recent].reverse(),
    };
  }

  /** Exchanges judged per operation since the start. */
  exchangesByOperation(): ReadonlyMap<string, number> {
    return this.byOperationExchanges;
  }

  /** Every (rule, operation) pair that was broken at least once. */
  ruleTallies(): RuleTally[] {
    return [...this.tallies.values()];
  }
}
