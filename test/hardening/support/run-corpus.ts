/**
 * Runs a corpus against a mock: in batches of parallel raw connections, judging every answer, and
 * after every batch comparing the `/__mock` listings with the creates the mock answered 201 (so a
 * rejected request that changed the recorded state is caught at the batch it happened in).
 */
import { isDeepStrictEqual } from 'node:util';
import { leakIn, problemFaults } from './answers.js';
import type { CorpusTarget, HostileCase, Resource } from './corpus-types.js';
import { rawExchange, type RawOutcome } from './raw-http.js';

export const RESOURCES: Resource[] = ['lot-transfers', 'test-samples'];

export type Listings = Record<Resource, Record<string, unknown>[]>;

export interface CorpusReport {
  tried: number;
  answered: number;
  /** Cases where the client tore the connection down and no answer was required. */
  unanswered: number;
  byStatus: Map<number, number>;
  byCategory: Map<string, number>;
  created: number;
  failures: string[];
}

export async function listings(baseUrl: string): Promise<Listings> {
  const get = async (resource: Resource) => {
    const response = await fetch(`${baseUrl}/__mock/${resource}`);
    if (response.status !== 200) throw new Error(`GET /__mock/${resource} answered ${response.status}`);
    return (await response.json()) as Record<string, unknown>[];
  };
  return { 'lot-transfers': await get('lot-transfers'), 'test-samples': await get('test-samples') };
}

/** The fixture order numbers and their lot ids, as the mock serves them. */
export async function discoverTarget(baseUrl: string, token: string): Promise<CorpusTarget> {
  const orderNumbers = (await (await fetch(`${baseUrl}/__mock/orders`)).json()) as string[];
  const lotIds: number[] = [];
  for (const number of orderNumbers) {
    const response = await fetch(`${baseUrl}/manualProduction/rest/v1/orders/info/${encodeURIComponent(number)}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const info = (await response.json()) as { lots: { id: number }[] };
    lotIds.push(...info.lots.map((lot) => lot.id));
  }
  return { orderNumbers, lotIds, token };
}

function judge(c: HostileCase, outcome: RawOutcome): { faults: string[]; created?: [Resource, Record<string, unknown>] } {
  const faults: string[] = [];
  const answer = outcome.answer;
  if (!answer) {
    if (!c.expect.answerOptional) faults.push(`no answer (${outcome.ended}${outcome.error ? `, ${outcome.error}` : ''})`);
    return { faults };
  }
  const head = /^HEAD /.test((Array.isArray(c.data) ? c.data[0] : c.data)?.subarray(0, 5).toString('latin1') ?? '');
  const text = answer.body.toString('utf8');
  if (!c.expect.statuses.includes(answer.status)) {
    faults.push(
      `status ${answer.status}, expected ${c.expect.statuses.join(' or ')} (${c.expect.why}); body ${JSON.stringify(text.slice(0, 160))}`,
    );
  }
  if (answer.status >= 500) faults.push(`a 5xx answer: ${answer.status}`);
  if (answer.status >= 400) faults.push(...problemFaults(answer, head));
  const leak = leakIn(text);
  if (leak) faults.push(`the body shows ${leak}`);
  if (answer.status === 201 && c.expect.creates) {
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(text) as Record<string, unknown>;
    } catch {
      faults.push('the 201 body is not JSON');
      return { faults };
    }
    for (const [member, value] of Object.entries(c.expect.echo ?? {})) {
      if (!isDeepStrictEqual(record[member], value))
        faults.push(`the created ${member} is ${JSON.stringify(record[member])?.slice(0, 80)}, not the value sent`);
    }
    return { faults, created: [c.expect.creates, record] };
  }
  return { faults };
}

const byId = (a: Record<string, unknown>, b: Record<string, unknown>) => Number(a['id']) - Number(b['id']);

export interface RunOptions {
  baseUrl: string;
  host: string;
  port: number;
  batchSize: number;
  timeoutMs: number;
  /** Called after every batch (e.g. to check the server process is alive). */
  afterBatch?: () => string | undefined;
}

export async function runCorpus(cases: HostileCase[], options: RunOptions): Promise<CorpusReport> {
  const report: CorpusReport = {
    tried: 0,
    answered: 0,
    unanswered: 0,
    byStatus: new Map(),
    byCategory: new Map(),
    created: 0,
    failures: [],
  };
  const expected = await listings(options.baseUrl);
  for (let start = 0; start < cases.length; start += options.batchSize) {
    const batch = cases.slice(start, start + options.batchSize);
    const outcomes = await Promise.all(
      batch.map((c) =>
        rawExchange({
          host: options.host,
          port: options.port,
          data: c.data,
          timeoutMs: options.timeoutMs,
          after: c.after ?? 'keep',
          ...(c.stopOnAnswer ? { stopOnAnswer: true } : {}),
          ...(c.waitForEarlyAnswerMs !== undefined ? { waitForEarlyAnswerMs: c.waitForEarlyAnswerMs } : {}),
        }),
      ),
    );
    batch.forEach((c, i) => {
      const outcome = outcomes[i] as RawOutcome;
      report.tried++;
      report.byCategory.set(c.category, (report.byCategory.get(c.category) ?? 0) + 1);
      if (outcome.answer) {
        report.answered++;
        report.byStatus.set(outcome.answer.status, (report.byStatus.get(outcome.answer.status) ?? 0) + 1);
      } else report.unanswered++;
      const { faults, created } = judge(c, outcome);
      for (const fault of faults) report.failures.push(`#${c.id} [${c.category}] ${c.label}: ${fault}`);
      if (created) {
        expected[created[0]].push(created[1]);
        report.created++;
      }
    });
    const dead = options.afterBatch?.();
    if (dead) {
      report.failures.push(`after case #${start + batch.length - 1}: ${dead}`);
      return report;
    }
    const actual = await listings(options.baseUrl);
    for (const resource of RESOURCES) {
      const want = [...expected[resource]].sort(byId);
      const got = [...actual[resource]].sort(byId);
      if (!isDeepStrictEqual(got, want)) {
        report.failures.push(
          `after cases #${start}-#${start + batch.length - 1}: /__mock/${resource} has ${got.length} objects, the answered creates say ${want.length} (ids ${got
            .map((r) => String(r['id']))
            .slice(-5)
            .join(',')} vs ${want
            .map((r) => String(r['id']))
            .slice(-5)
            .join(',')})`,
        );
        expected[resource] = actual[resource];
      }
    }
  }
  return report;
}

export function summary(report: CorpusReport): string {
  const statuses = [...report.byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}:${n}`);
  const categories = [...report.byCategory.entries()].map(([c, n]) => `${c} ${n}`);
  return `${report.tried} requests (${report.answered} answered, ${report.unanswered} torn down by the client), ${report.created} creates; statuses ${statuses.join(' ')}; ${categories.join(', ')}`;
}
