/**
 * Creates sent all at once, one connection each (no agent pooling, `Connection: close`), each with a
 * marker of its own in the body, and the check that the mock's listings hold exactly the creates it
 * answered 201: every 201 listed once, no refused create listed, ids unique: a refused create must leave no trace, a burst must lose none.
 */
import { Agent, request } from 'node:http';
import { CREATE_PATHS, type Resource } from './corpus-types.js';

export interface BurstCreate {
  i: number;
  resource: Resource;
  session: string;
  marker: string;
}

export interface BurstAnswer extends BurstCreate {
  /** The status, or 0 when no answer came (the error is in `error`). */
  status: number;
  /** The problem type's last segment (`mock-busy`), for an error answer. */
  type?: string;
  /** The problem's detail, for an error answer. */
  detail?: string;
  /** The created record, for a 201. */
  record?: Record<string, unknown>;
  error?: string;
}

type Row = Record<string, unknown>;

/** Padding shared by every padded body (sent as views of it: a burst of large bodies costs the sender no copies). */
let padding = Buffer.alloc(0);

/**
 * The body of a create, in parts: its marker in one member; a test sample padded to exactly `bytes`
 * when given (its notes: the marker, a space, then `x`s).
 */
function bodyOf(create: BurstCreate, lot: number, bytes?: number): (string | Buffer)[] {
  if (create.resource === 'lot-transfers')
    return [JSON.stringify({ fk_lot_id: lot, source_scancode: create.marker, target_scancode: 'T', amount: create.i + 1 })];
  const body = JSON.stringify({ fk_lot_id: lot, fk_user_id: create.i + 1, notes: create.marker });
  if (bytes === undefined || bytes <= body.length + 1) return [body];
  const head = `${body.slice(0, -2)} `;
  const pad = bytes - head.length - 2;
  if (padding.length < pad) padding = Buffer.alloc(pad, 'x');
  return [head, padding.subarray(0, pad), '"}'];
}

/** The marker member of a record (the one `bodyOf` puts it in), without a test sample's padding. */
export function markerOf(resource: Resource, record: Row): string {
  return String(resource === 'lot-transfers' ? record['source_scancode'] : record['notes']).split(' ', 1)[0] ?? '';
}

function post(
  base: URL,
  agent: Agent,
  create: BurstCreate,
  body: (string | Buffer)[],
  token: string,
  timeoutMs: number,
): Promise<BurstAnswer> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: Omit<BurstAnswer, keyof BurstCreate>): void => {
      if (settled) return;
      settled = true;
      resolve({ ...create, ...answer });
    };
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        method: 'POST',
        path: CREATE_PATHS[create.resource],
        agent,
        timeout: timeoutMs,
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          'Content-Length': body.reduce((sum, part) => sum + Buffer.byteLength(part), 0),
          'X-Mock-Session': create.session,
          Connection: 'close',
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('error', (error) => done({ status: 0, error: error.message }));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          try {
            const value = JSON.parse(text) as Row;
            if (status === 201) done({ status, record: value });
            else
              done({ status, type: String(value['type']).replace('https://goods.example/problems/', ''), detail: String(value['detail']) });
          } catch {
            done({ status, error: `not JSON: ${text.slice(0, 80)}` });
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (error) => done({ status: 0, error: error.message }));
    for (const part of body) req.write(part);
    req.end();
  });
}

export interface BurstOptions {
  count: number;
  lot: number;
  token: string;
  /** The markers' prefix (unique per burst). */
  tag: string;
  /** Each create's session (default: `default`). */
  session?: (i: number) => string;
  /** Only test samples, each padded to exactly this many bytes (default: a third test samples, unpadded). */
  sampleBytes?: number;
  timeoutMs?: number;
}

/** Sends `count` creates at once, each on its own connection. */
export async function burst(url: string, options: BurstOptions): Promise<BurstAnswer[]> {
  const base = new URL(url);
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  try {
    return await Promise.all(
      Array.from({ length: options.count }, (_, i) => {
        const resource: Resource = options.sampleBytes !== undefined || i % 3 === 0 ? 'test-samples' : 'lot-transfers';
        const create = { i, resource, session: options.session?.(i) ?? 'default', marker: `${options.tag}-${i}` };
        const body = bodyOf(create, options.lot, options.sampleBytes);
        return post(base, agent, create, body, options.token, options.timeoutMs ?? 30_000);
      }),
    );
  } finally {
    agent.destroy();
  }
}

/** Every record of a session's listing, page by page. */
export async function listAll(url: string, resource: Resource, session: string): Promise<Row[]> {
  const rows: Row[] = [];
  let next: string | undefined = `/__mock/${resource}?limit=1000`;
  while (next !== undefined) {
    const response: Response = await fetch(`${url}${next}`, { headers: { 'X-Mock-Session': session } });
    if (response.status !== 200) throw new Error(`GET ${next} (session ${session}) answered ${response.status}: ${await response.text()}`);
    rows.push(...((await response.json()) as Row[]));
    next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return rows;
}

/** The count of each answer (`201`, `503 mock-busy`, `0 socket hang up`). */
export function tally(answers: BurstAnswer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) {
    const key = a.status === 201 ? '201' : a.status === 0 ? `no answer (${a.error ?? ''})` : `${a.status} ${a.type ?? a.error ?? ''}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

export interface Reconciled {
  /** Markers answered 201 and not listed (lost). */
  lost: string[];
  /** Markers listed more than once. */
  duplicated: string[];
  /** Markers listed whose create was answered with an error (the lie). */
  refusedButListed: string[];
  /** Markers listed whose create got no answer (the connection broke): recorded, the answer lost. */
  unansweredButListed: string[];
  /** Listed markers that no create of this burst sent. */
  unknown: string[];
  /** Ids listed more than once within a session and resource. */
  duplicateIds: string[];
  /** Records answered 201 whose listed JSON differs from the answer. */
  changed: string[];
  listed: number;
}

/** Compares the listings of every session the burst used with its answers. */
export async function reconcile(url: string, answers: BurstAnswer[]): Promise<Reconciled> {
  const result: Reconciled = {
    lost: [],
    duplicated: [],
    refusedButListed: [],
    unansweredButListed: [],
    unknown: [],
    duplicateIds: [],
    changed: [],
    listed: 0,
  };
  const byMarker = new Map(answers.map((a) => [a.marker, a]));
  const seen = new Map<string, number>();
  const sessions = [...new Set(answers.map((a) => a.session))];
  for (const session of sessions) {
    for (const resource of ['lot-transfers', 'test-samples'] as const) {
      const rows = await listAll(url, resource, session);
      result.listed += rows.length;
      const ids = new Set<number>();
      for (const row of rows) {
        const id = Number(row['id']);
        if (ids.has(id)) result.duplicateIds.push(`${session}/${resource}/${id}`);
        ids.add(id);
        const marker = markerOf(resource, row);
        seen.set(marker, (seen.get(marker) ?? 0) + 1);
        const answer = byMarker.get(marker);
        if (!answer) result.unknown.push(marker);
        else if (answer.status === 0) result.unansweredButListed.push(marker);
        else if (answer.status !== 201) result.refusedButListed.push(`${marker} (${answer.status} ${answer.type ?? answer.error ?? ''})`);
        else if (JSON.stringify(answer.record) !== JSON.stringify(row)) result.changed.push(marker);
      }
    }
  }
  for (const [marker, times] of seen) if (times > 1) result.duplicated.push(marker);
  for (const a of answers) if (a.status === 201 && !seen.has(a.marker)) result.lost.push(a.marker);
  return result;
}
