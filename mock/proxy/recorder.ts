/**
 * `--record DIR`: every order-info answer that passes the strict judgments is written to DIR as a
 * fixture file for `--fixtures` (the answer's JSON, pretty-printed, nothing else: no header, no
 * credential). One file per order number: a newer answer overwrites it (an existing file of the same
 * order keeps its name, so the repository's fixtures folder can be refreshed in place). An answer that
 * fails a judgment, contains a credential the proxy has seen, or reuses a lot id of another recorded
 * order (`--fixtures` refuses that) is not written, and the log says why. Writes are atomic
 * (temporary file, then rename) and one at a time per order.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isObject, type JsonValue } from '../../contract/document.js';
import type { ProxyExchange } from './exchange.js';
import type { OperationsModel } from '../../contract/operations-model.js';
import type { Judge } from './judge.js';
import { escapeControlsUnicode, REDACTED, type Redactor } from '../../redaction/redactor.js';
import { messageOf } from '../../util/errors.js';

/** A file name for an order number: percent-encoded (so distinct numbers never share a file), at most ~200 characters. */
export function fixtureFileName(orderNumber: string): string {
  const safe = encodeURIComponent(orderNumber).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const name = safe.length > 180 ? `${safe.slice(0, 160)}-${createHash('sha256').update(orderNumber).digest('hex').slice(0, 16)}` : safe;
  return `${name}.json`;
}

/** The order number of an order-info answer and its lot ids (members named by the operations model). */
function describe(value: JsonValue, model: OperationsModel): { orderNumber: string; lots: number[] } | undefined {
  if (model.order === undefined || !isObject(value)) return undefined;
  const { orderMember, orderNumberMember, lotsMember, lotIdMember, lotNumberMember } = model.order;
  const order = value[orderMember];
  const orderNumber = isObject(order) ? order[orderNumberMember] : undefined;
  if (typeof orderNumber !== 'string') return undefined;
  const items = value[lotsMember];
  const lots = (Array.isArray(items) ? items : []).flatMap((item) => {
    const id = isObject(item) ? item[lotIdMember] : undefined;
    return typeof id === 'number' && isObject(item) && typeof item[lotNumberMember] === 'string' ? [id] : [];
  });
  return { orderNumber, lots };
}

export interface RecorderOptions {
  dir: string;
  judge: Judge;
  redactor: Redactor;
  log: (line: string) => void;
}

export class Recorder {
  /** Order number → file name in the folder. */
  private readonly files = new Map<string, string>();
  /** Lot id → order number, over the folder's files. */
  private readonly lotOwners = new Map<number, string>();
  private readonly lotsOf = new Map<string, number[]>();
  private readonly writing = new Map<string, Promise<void>>();
  /** Orders written since the start. */
  recorded = 0;

  constructor(private readonly options: RecorderOptions) {
    mkdirSync(options.dir, { recursive: true });
    for (const name of readdirSync(options.dir).filter((n) => n.endsWith('.json'))) {
      try {
        const found = describe(JSON.parse(readFileSync(join(options.dir, name), 'utf8')) as JsonValue, options.judge.model);
        if (found) this.remember(found.orderNumber, name, found.lots);
      } catch {
        // not a fixture: left alone
      }
    }
  }

  private remember(orderNumber: string, file: string, lots: number[]): void {
    for (const lot of this.lotsOf.get(orderNumber) ?? []) if (this.lotOwners.get(lot) === orderNumber) this.lotOwners.delete(lot);
    this.files.set(orderNumber, file);
    this.lotsOf.set(orderNumber, lots);
    for (const lot of lots) this.lotOwners.set(lot, orderNumber);
  }

  /** Looks at one exchange; records it when it is a 2xx order-info answer that passes the strict judgments. */
  consider(exchange: ProxyExchange, operation: string): void {
    if (operation !== this.options.judge.model.orderInfo?.operationId || exchange.answer.status < 200 || exchange.answer.status > 299)
      return;
    const label = `proxy: record: ${escapeControlsUnicode(this.options.redactor.redact(exchange.target)).slice(0, 200)}`;
    const problems = this.options.judge.judgeAt(exchange, 'strict').filter((v) => v.side === 'server');
    if (problems.length > 0) {
      const why = problems.map((v) => `${v.rule} ${v.in}${v.pointer === '' ? '' : ` ${v.pointer}`}: ${v.reason}`).join('; ');
      this.options.log(
        `${label} not recorded: the answer fails the strict judgments (${escapeControlsUnicode(this.options.redactor.redact(why))})`,
      );
      return;
    }
    if (!exchange.answer.complete) {
      this.options.log(`${label} not recorded: the answer is larger than the proxy keeps`);
      return;
    }
    let value: JsonValue;
    try {
      value = JSON.parse(exchange.answer.body.toString('utf8')) as JsonValue;
    } catch {
      this.options.log(`${label} not recorded: the answer could not be read as JSON (compressed?)`);
      return;
    }
    const text = `${JSON.stringify(value, null, 2)}\n`;
    const redacted = this.options.redactor.redact(text);
    if (redacted !== text && redacted.includes(REDACTED)) {
      this.options.log(`${label} not recorded: the answer contains a credential`);
      return;
    }
    const found = describe(value, this.options.judge.model);
    if (!found) return;
    const clash = found.lots.find((lot) => (this.lotOwners.get(lot) ?? found.orderNumber) !== found.orderNumber);
    if (clash !== undefined) {
      this.options.log(
        `${label} not recorded: its lot ${clash} is already a lot of recorded order ${JSON.stringify(this.lotOwners.get(clash))} (--fixtures needs lot ids unique across orders)`,
      );
      return;
    }
    const file = this.files.get(found.orderNumber) ?? fixtureFileName(found.orderNumber);
    this.remember(found.orderNumber, file, found.lots);
    const previous = this.writing.get(found.orderNumber) ?? Promise.resolve();
    const next = previous
      .then(async () => {
        const path = join(this.options.dir, file);
        const temporary = `${path}.${process.pid}.tmp`;
        await writeFile(temporary, text);
        await rename(temporary, path);
        this.recorded++;
        this.options.log(`proxy: recorded order ${JSON.stringify(found.orderNumber)} → ${path}`);
      })
      .catch((error: unknown) => {
        this.options.log(`${label} not recorded: ${messageOf(error)}`);
      })
      .finally(() => {
        if (this.writing.get(found.orderNumber) === next) this.writing.delete(found.orderNumber);
      });
    this.writing.set(found.orderNumber, next);
  }

  /** Waits for the writes under way. */
  async flush(): Promise<void> {
    await Promise.all([...this.writing.values()]);
  }
}
