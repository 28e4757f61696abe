/**
 * A small, correct reference implementation of the contract and its profile (node:http, fixture
 * orders), for the suite's own tests. Each fault in `faults` breaks exactly one behaviour, so a test
 * can show that the check guarding that behaviour fails. Faults are `name` or `name:operationId`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isObject, readContract, type JsonObject } from '../../contract/document.js';
import { loadFixtures } from '../../contract/fixtures.js';
import { compileContract, type FieldError } from '../../contract/schemas.js';

export const REFERENCE_TOKEN = 'reference-token';
const LIMIT = 1024 * 1024;
const INFO = '/manualProduction/rest/v1/orders/info/';
const CREATE: Record<string, 'createLotTransfer' | 'createTestSample'> = {
  '/goodsReception/rest/v1/lot-transfers/create': 'createLotTransfer',
  '/goodsReception/rest/v1/test-samples/create': 'createTestSample',
};
const REQUEST_SCHEMA = { createLotTransfer: 'LotTransferCreate', createTestSample: 'TestSampleCreate' } as const;

export interface ReferenceServer {
  url: string;
  close(): Promise<void>;
}

type Op = 'getOrderInfo' | 'createLotTransfer' | 'createTestSample';

export async function startReferenceServer(faults: readonly string[] = []): Promise<ReferenceServer> {
  const has = (name: string, op?: Op): boolean => faults.includes(name) || (op !== undefined && faults.includes(`${name}:${op}`));
  const contract = compileContract(readContract(), 'strict');
  const fixtures = loadFixtures(undefined, contract);
  const validators = {
    createLotTransfer: contract.validator({ $ref: `#/components/schemas/${REQUEST_SCHEMA.createLotTransfer}` }),
    createTestSample: contract.validator({ $ref: `#/components/schemas/${REQUEST_SCHEMA.createTestSample}` }),
  };
  const ids = { createLotTransfer: 0, createTestSample: 0 };
  let sampleSequence = 0;

  const send = (
    res: http.ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
    type = 'application/json',
  ): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  };
  const problem = (
    res: http.ServerResponse,
    status: number,
    detail: string,
    extra: JsonObject = {},
    headers: Record<string, string> = {},
  ): void => {
    const body: JsonObject = {
      type: `https://reference.example/problems/${status}`,
      title: http.STATUS_CODES[status] ?? 'Error',
      status,
      detail,
      ...extra,
    };
    if (has('problem-no-type')) delete body['type'];
    if (has('plain-text-errors')) {
      res.writeHead(status, { 'content-type': 'text/plain', ...headers });
      res.end(`${status} ${detail}`);
      return;
    }
    send(res, status, body, headers, 'application/problem+json');
  };

  /** Bearer check; answers 401 (or a faulty alternative) and returns false when refused. */
  const authorized = (req: http.IncomingMessage, res: http.ServerResponse, op: Op): boolean => {
    const header = req.headers.authorization;
    let variant: 'missing' | 'non-bearer' | 'rejected' | undefined;
    if (header === undefined) variant = 'missing';
    else if (!/^Bearer /i.test(header)) variant = 'non-bearer';
    else if (header.slice(7).trim() !== REFERENCE_TOKEN) variant = 'rejected';
    if (variant === undefined || has(`auth-accepts-${variant}`, op)) return true;
    if (has(`auth-403-${variant}`, op) || has('auth-403')) {
      problem(res, 403, 'forbidden');
      return false;
    }
    const challenge =
      variant === 'rejected' && !has('auth-no-invalid-token', op)
        ? 'Bearer realm="reference", error="invalid_token"'
        : 'Bearer realm="reference"';
    problem(res, 401, 'send a valid bearer token', {}, has('auth-no-challenge', op) ? {} : { 'www-authenticate': challenge });
    return false;
  };

  const orderInfo = (req: http.IncomingMessage, res: http.ServerResponse, raw: string): void => {
    const op = 'getOrderInfo';
    if (has('hang-order-info')) return; // never answers
    if (req.method !== 'GET') {
      problem(res, 405, 'use GET', {}, has('405-no-allow', op) ? {} : { allow: 'GET' });
      return;
    }
    if (!authorized(req, res, op)) return;
    const number = decodeURIComponent(raw);
    let order = fixtures.orders.get(number);
    if (!order && has('unknown-order-answers-first')) order = [...fixtures.orders.values()][0];
    if (!order) {
      if (has('order-always-404')) return problem(res, 404, 'no such order');
      return problem(res, has('unknown-order-410') ? 410 : 404, `no order has the number "${number}"`);
    }
    if (has('order-always-404')) return problem(res, 404, 'no such order');
    const answer = structuredClone(order) as unknown as { order: JsonObject };
    if (has('order-number-changed')) answer.order['orderNumber'] = `${number}-X`;
    if (has('order-wrong-type')) answer.order['customerId'] = JSON.stringify(answer.order['customerId']);
    if (has('order-date-format')) answer.order['orderDate'] = '02.11.2026';
    send(res, has('order-203') ? 203 : 200, answer);
  };

  const create = (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    op: 'createLotTransfer' | 'createTestSample',
    bytes: Buffer,
    overLimit: boolean,
  ): void => {
    if (req.method !== 'POST') {
      problem(res, 405, 'use POST', {}, has('405-no-allow', op) ? {} : { allow: 'POST' });
      return;
    }
    if (!authorized(req, res, op)) return;
    if (overLimit) return problem(res, 413, `the body is larger than ${LIMIT} bytes`);
    const type = (req.headers['content-type'] ?? '').toLowerCase();
    const [mediaType, ...params] = type.split(';').map((s) => s.trim());
    const json = mediaType === 'application/json' || has('accept-text-plain', op);
    if (!json || (params.length > 0 && has('charset-415', op))) return problem(res, 415, 'send application/json');
    let body: unknown;
    try {
      body = JSON.parse(bytes.toString('utf8'));
    } catch {
      return problem(res, has('malformed-422', op) ? 422 : 400, 'the body is not JSON', {
        errors: [{ pointer: '', detail: 'is not JSON' }],
      });
    }
    if (!isObject(body))
      return problem(res, has('non-object-422', op) ? 422 : 400, 'the body is not a JSON object', {
        errors: [{ pointer: '', detail: 'must be an object' }],
      });
    let errors: FieldError[] = validators[op](body);
    if (has('no-required', op)) errors = errors.filter((e) => e.detail !== 'is required');
    if (has('allow-unknown', op)) errors = errors.filter((e) => !e.detail.startsWith('is not a member'));
    if (has('no-bounds', op)) errors = errors.filter((e) => !/^must (be [<>]|NOT have)/.test(e.detail));
    if (has('wrong-type-pointer-root', op))
      errors = errors.map((e) => (e.detail.startsWith('must be of type') ? { pointer: '', detail: e.detail } : e));
    if (errors.length > 0)
      return problem(res, 400, `${errors.length} problem(s) in the body`, { errors: errors as unknown as JsonObject[] });
    const lotId = body['fk_lot_id'];
    const lot = typeof lotId === 'number' ? fixtures.lots.get(lotId) : undefined;
    if (!lot) {
      const extra: JsonObject = has('unknown-lot-no-pointer', op)
        ? {}
        : { errors: [{ pointer: '/fk_lot_id', detail: `no lot has the id ${JSON.stringify(lotId)}` }] };
      return problem(res, has('unknown-lot-400', op) ? 400 : 422, 'unknown lot', extra);
    }
    const now = has('created-format', op) ? new Date().toString() : new Date().toISOString();
    const keep = has('keep-read-only', op);
    ids[op]++;
    const record: JsonObject = {
      ...body,
      id: keep && typeof body['id'] === 'number' ? body['id'] : has('constant-id', op) ? 1 : ids[op],
      created: keep && typeof body['created'] === 'string' ? body['created'] : now,
      modified: keep && typeof body['modified'] === 'string' ? body['modified'] : now,
    };
    record['lotnumber'] =
      typeof body['lotnumber'] === 'string' && !has('ignore-sent-lotnumber', op) ? body['lotnumber'] : lot.lot.lotNumber;
    if (op === 'createLotTransfer') {
      if (typeof body['completed'] !== 'boolean' && !has('no-default-completed')) record['completed'] = false;
    } else {
      if (typeof body['sample_number'] !== 'string')
        record['sample_number'] = has('constant-sample-number') ? 'S-000001' : `S-${String(++sampleSequence).padStart(6, '0')}`;
      if (typeof body['status'] !== 'string') record['status'] = has('default-status-open') ? 'OPEN' : 'NEW';
      if (typeof body['notes'] !== 'string') record['notes'] = '';
    }
    if (has('create-id-string', op)) record['id'] = JSON.stringify(record['id']);
    if (has('create-rejects', op)) return problem(res, 400, 'refused');
    send(res, has('create-200', op) ? 200 : 201, record);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const limit = has('no-size-limit') ? Infinity : LIMIT;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const op = CREATE[path];
      if (path.startsWith(INFO) && path.length > INFO.length && !path.slice(INFO.length).includes('/'))
        orderInfo(req, res, path.slice(INFO.length));
      else if (op) create(req, res, op, Buffer.concat(chunks), size > limit);
      else if (has('unknown-path-500')) problem(res, 500, 'boom');
      else problem(res, has('unknown-path-400') ? 400 : 404, `no such path: ${path}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
