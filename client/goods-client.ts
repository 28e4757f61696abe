/**
 * A small typed client for the goods-handling service's three operations, built with openapi-fetch
 * over the `paths` type generated from the contract. Works in Node (>= 20) and in browsers.
 *
 * Every call answers `{ data, status }` on success or `{ error, status }` with the problem+json
 * body on an error answer; it throws only when no answer arrives (network error, CORS refusal).
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '../contract/generated/types.js';

type Schemas = components['schemas'];
export type OrderInfo = Schemas['OrderInfo'];
export type Lot = Schemas['Lot'];
export type LotTransfer = Schemas['LotTransfer'];
export type LotTransferCreate = Schemas['LotTransferCreate'];
export type TestSample = Schemas['TestSample'];
export type TestSampleCreate = Schemas['TestSampleCreate'];
export type Problem = Schemas['Problem'];
export type ValidationProblem = Schemas['ValidationProblem'];
export type FieldError = Schemas['FieldError'];

/** The answer of one call: the typed body on success, the problem details on an error answer. */
export type ApiResult<T, E extends Problem = Problem> =
  { data: T; error?: undefined; status: number } | { data?: undefined; error: E; status: number };

export interface GoodsClientOptions {
  /** Where the service (or the mock) answers, e.g. `http://127.0.0.1:4010`. */
  baseUrl: string;
  /** The bearer token sent as `Authorization: Bearer <token>`. */
  token: string;
  /** The mock's isolated session (`X-Mock-Session`); omit for the default session. */
  session?: string;
  /** A fetch to use instead of `globalThis.fetch` (tests, instrumentation). */
  fetch?: (request: Request) => Promise<Response>;
  /** Further headers sent with every request. */
  headers?: Record<string, string>;
}

export interface GoodsClient {
  /** `GET /manualProduction/rest/v1/orders/info/{number}`; the number is URL-encoded (`WE 2026-0003` → `WE%202026-0003`). */
  getOrderInfo(number: string): Promise<ApiResult<OrderInfo>>;
  /** `POST /goodsReception/rest/v1/lot-transfers/create`. */
  createLotTransfer(body: LotTransferCreate): Promise<ApiResult<LotTransfer, Problem | ValidationProblem>>;
  /** `POST /goodsReception/rest/v1/test-samples/create`. */
  createTestSample(body: TestSampleCreate): Promise<ApiResult<TestSample, Problem | ValidationProblem>>;
  /** The underlying openapi-fetch client, for operations added to the contract later. */
  readonly api: Client<paths>;
}

/** The session header the mock understands. */
export const SESSION_HEADER = 'X-Mock-Session';

export function createGoodsClient(options: GoodsClientOptions): GoodsClient {
  if (!/^https?:\/\//.test(options.baseUrl)) {
    throw new TypeError(
      `createGoodsClient: baseUrl must be an absolute http(s) URL such as "http://127.0.0.1:4010", not ${JSON.stringify(options.baseUrl)}`,
    );
  }
  const headers: Record<string, string> = { ...options.headers, Authorization: `Bearer ${options.token}` };
  if (options.session !== undefined) headers[SESSION_HEADER] = options.session;
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  return {
    api,
    async getOrderInfo(number) {
      const { data, error, response } = await api.GET('/manualProduction/rest/v1/orders/info/{number}', { params: { path: { number } } });
      return settle(data, error, response);
    },
    async createLotTransfer(body) {
      const { data, error, response } = await api.POST('/goodsReception/rest/v1/lot-transfers/create', { body });
      return settle(data, error, response);
    },
    async createTestSample(body) {
      const { data, error, response } = await api.POST('/goodsReception/rest/v1/test-samples/create', { body });
      return settle(data, error, response);
    },
  };
}

function settle<T, E extends Problem>(data: T | undefined, error: unknown, response: Response): ApiResult<T, E | Problem> {
  if (response.ok && data !== undefined) return { data, status: response.status };
  return { error: asProblem(error, response), status: response.status };
}

/** The error body when it is problem details; otherwise problem details describing what came instead. */
function asProblem<E extends Problem>(body: unknown, response: Response): E | Problem {
  if (isProblem(body)) return body;
  const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body);
  return {
    type: 'about:blank',
    title: response.statusText || `HTTP ${response.status}`,
    status: response.status,
    detail: response.ok
      ? `The ${response.status} answer had no JSON body.`
      : `The ${response.status} answer was not problem details (application/problem+json): ${text.slice(0, 200) || '(empty body)'}`,
  };
}

/**
 * True for a problem that lists what was wrong with the request body, member by member (the 400 of a
 * create, and its 422 naming an unknown lot): `errors[].pointer` is a JSON Pointer into the body sent,
 * `errors[].detail` what was wrong there:
 *
 * ```ts
 * if (created.error && isValidationProblem(created.error)) for (const e of created.error.errors) show(e.pointer, e.detail);
 * ```
 */
export function isValidationProblem(problem: Problem): problem is ValidationProblem {
  return 'errors' in problem && Array.isArray(problem.errors) && problem.errors.every(isFieldError);
}

function isFieldError(value: unknown): value is FieldError {
  return (
    typeof value === 'object' &&
    value !== null &&
    'pointer' in value &&
    typeof value.pointer === 'string' &&
    'detail' in value &&
    typeof value.detail === 'string'
  );
}

function isProblem(value: unknown): value is Problem {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record['type'] === 'string' && typeof record['title'] === 'string' && typeof record['status'] === 'number';
}
