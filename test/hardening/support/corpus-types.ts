/** The shape of a hostile-input case and what the contract says its answer must be. */
export type Resource = 'lot-transfers' | 'test-samples';

export interface Expectation {
  /** The statuses the contract allows for this request (one, unless the contract leaves a choice). */
  statuses: number[];
  /** Why, in a few words (shown when the answer differs). */
  why: string;
  /** A 201 records one object of this resource (tracked for the state check). */
  creates?: Resource;
  /** Members the created object must echo exactly as sent (parsed). */
  echo?: Record<string, unknown>;
  /** The client tears the connection down itself, so no answer is required (one may still arrive). */
  answerOptional?: boolean;
}

export interface HostileCase {
  id: number;
  category: string;
  label: string;
  /** The bytes to send (parts are sent one after the other). */
  data: Buffer | Buffer[];
  after?: 'end' | 'destroy';
  stopOnAnswer?: boolean;
  /** Wait this long after the head for an early answer (a declared oversized body is refused at once). */
  waitForEarlyAnswerMs?: number;
  expect: Expectation;
}

/** What the corpus needs to know about the mock under test (discovered over HTTP, not hard-coded). */
export interface CorpusTarget {
  orderNumbers: string[];
  lotIds: number[];
  token: string;
}

export const ORDER_PATH = '/manualProduction/rest/v1/orders/info/';
export const TRANSFERS_PATH = '/goodsReception/rest/v1/lot-transfers/create';
export const SAMPLES_PATH = '/goodsReception/rest/v1/test-samples/create';
export const CREATE_PATHS: Record<Resource, string> = { 'lot-transfers': TRANSFERS_PATH, 'test-samples': SAMPLES_PATH };
export const ONE_MIB = 1024 * 1024;
export const HEADER_LIMIT = 16 * 1024;
