/**
 * The fault catalogue: what a frontend can ask the mock to do wrong, as data (kind, what
 * it does, its parameter, its bounds), and the one grammar every way of asking uses: `Prefer:
 * fault=<fault>` on a request, the `fault` member of a session rule (`POST /__mock/faults`), and the
 * first part of the `X-Mock-Fault` header that marks a faulted answer. `docs/faults.md` documents it;
 * `faults.test.ts` keeps the two equal.
 *
 *     fault = "status:" ("500" / "502" / "503" / "504")
 *           / "delay:" MS / "delay:" MIN "-" MAX
 *           / "drop" / "reset" / "empty"
 *           / "truncate" / "truncate:" BYTES
 *           / "drip:" BYTES-PER-SECOND
 */
import { preferenceValue } from './prefer-header.js';
import { problem, type ProblemName } from './problems.js';

/** The server errors a `status` fault answers, and the catalogue's problem of each. */
export const INJECTED_STATUSES = {
  500: 'injectedInternalError',
  502: 'injectedBadGateway',
  503: 'injectedUnavailable',
  504: 'injectedGatewayTimeout',
} as const satisfies Record<number, ProblemName>;
export type InjectedStatus = keyof typeof INJECTED_STATUSES;

/** The bounds of the faults' parameters. */
export const FAULT_LIMITS = {
  /** The longest `delay` (ms): a minute, longer than any browser or client time-out worth testing. */
  maxDelayMs: 60_000,
  /** The slowest `drip` (bytes/s): an order-info answer (about 1.2 KiB) then takes two minutes. */
  minDripBytesPerSecond: 10,
  maxDripBytesPerSecond: 1024 * 1024,
  /** The largest `truncate` length (bytes); an answer shorter than it is cut one byte short. */
  maxTruncateBytes: 1024 * 1024,
  /** The seconds a client is told to wait in the `Retry-After` of an injected 503. */
  retryAfterSeconds: 1,
} as const;

/**
 * What a fault does to the real answer:
 * - `replaces`: the request is not handled (a create records nothing); the fault is the answer;
 * - `delays`: the request is handled after the delay (if the client is still there), answered as usual;
 * - `damages`: the request is handled (a create is recorded) and its real answer is damaged in transport.
 */
export type FaultEffect = 'replaces' | 'delays' | 'damages';

/**
 * What the client gets, against the contracts:
 * - `documented`: an answer the API contract or the mock-control contract describes (`mock/control.openapi.yaml`);
 * - `out-of-contract`: a complete HTTP answer no contract describes (listed in the control contract's
 *   `x-out-of-contract-faults`, so `documented-answers.test.ts` knows it);
 * - `no-answer`: no complete HTTP answer at all (the connection closes before or inside it).
 */
export type FaultOutcome = 'documented' | 'out-of-contract' | 'no-answer';

export interface FaultKind {
  /** The grammar of the fault, e.g. `delay:MS | delay:MIN-MAX`. */
  syntax: string;
  /** One sentence: what the client gets. */
  does: string;
  /** The parameter: none, optional or required. */
  param: 'none' | 'optional' | 'required';
  effect: FaultEffect;
  outcome: FaultOutcome;
}

export const FAULTS = {
  status: {
    syntax: 'status:500 | status:502 | status:503 | status:504',
    does: 'answers that status with a problem+json whose type names the injected fault (503: with Retry-After: 1), instead of the real answer',
    param: 'required',
    effect: 'replaces',
    outcome: 'documented',
  },
  delay: {
    syntax: `delay:MS | delay:MIN-MAX (MS up to ${FAULT_LIMITS.maxDelayMs})`,
    does: 'waits MS milliseconds (or a random time from MIN to MAX), then gives the real answer; a client gone by then is not served',
    param: 'required',
    effect: 'delays',
    outcome: 'documented',
  },
  drop: {
    syntax: 'drop',
    does: 'closes the connection without sending a byte of an answer (a browser: TypeError "Failed to fetch")',
    param: 'none',
    effect: 'replaces',
    outcome: 'no-answer',
  },
  reset: {
    syntax: 'reset',
    does: 'resets the connection (TCP RST) without sending a byte of an answer',
    param: 'none',
    effect: 'replaces',
    outcome: 'no-answer',
  },
  empty: {
    syntax: 'empty',
    does: 'sends the real status and headers with Content-Length: 0 and no body (response.json() rejects)',
    param: 'none',
    effect: 'damages',
    outcome: 'out-of-contract',
  },
  truncate: {
    syntax: `truncate | truncate:BYTES (BYTES up to ${FAULT_LIMITS.maxTruncateBytes})`,
    does: 'sends the real status and headers (the full Content-Length), the first half (or BYTES) of the body, then closes the connection',
    param: 'optional',
    effect: 'damages',
    outcome: 'no-answer',
  },
  drip: {
    syntax: `drip:BYTES_PER_SECOND (${FAULT_LIMITS.minDripBytesPerSecond} to ${FAULT_LIMITS.maxDripBytesPerSecond})`,
    does: 'sends the real answer whole, its body at BYTES_PER_SECOND (a slice every 100 ms)',
    param: 'required',
    effect: 'damages',
    outcome: 'documented',
  },
} as const satisfies Record<string, FaultKind>;

export type FaultKindName = keyof typeof FAULTS;

export type Fault =
  | { kind: 'status'; status: InjectedStatus }
  | { kind: 'delay'; minMs: number; maxMs: number }
  | { kind: 'drop' }
  | { kind: 'reset' }
  | { kind: 'empty' }
  /** `bytes` undefined: half of the body. */
  | { kind: 'truncate'; bytes: number | undefined }
  | { kind: 'drip'; bytesPerSecond: number };

const KINDS = Object.keys(FAULTS) as FaultKindName[];

function isKind(name: string): name is FaultKindName {
  return (KINDS as string[]).includes(name);
}

function isInjectedStatus(status: number): status is InjectedStatus {
  return Object.hasOwn(INJECTED_STATUSES, status);
}

/** The grammar in one line, for error messages. */
export const FAULT_GRAMMAR = KINDS.map((kind) => FAULTS[kind].syntax).join(', ');

/** A whole number of at most 9 digits, from `min` to `max`, or undefined. */
function whole(text: string, min: number, max: number): number | undefined {
  if (!/^\d{1,9}$/.test(text)) return undefined;
  const value = Number(text);
  return value >= min && value <= max ? value : undefined;
}

/** The fault `text` names, or the reason it names none (one sentence without a full stop). */
export function faultOrReason(text: string): Fault | string {
  const match = /^([a-z]+)(?::(.*))?$/s.exec(text);
  const name = match?.[1] ?? '';
  if (!match || !isKind(name)) return `the fault must be one of ${KINDS.join(', ')}`;
  const param = match[2];
  const kind = FAULTS[name];
  if (param === undefined && kind.param === 'required') return `${name} needs its parameter (${kind.syntax})`;
  if (param !== undefined && kind.param === 'none') return `${name} takes no parameter`;
  switch (name) {
    case 'status': {
      const status = whole(param ?? '', 0, 999);
      return status !== undefined && isInjectedStatus(status) ? { kind: 'status', status } : `status must be one of ${kind.syntax}`;
    }
    case 'delay': {
      const [low = '', high, ...rest] = (param ?? '').split('-');
      const minMs = whole(low, 0, FAULT_LIMITS.maxDelayMs);
      const maxMs = high === undefined ? minMs : whole(high, 0, FAULT_LIMITS.maxDelayMs);
      if (rest.length > 0 || minMs === undefined || maxMs === undefined || maxMs < minMs)
        return `delay must be whole milliseconds from 0 to ${FAULT_LIMITS.maxDelayMs}, MS or MIN-MAX with MIN <= MAX`;
      return { kind: 'delay', minMs, maxMs };
    }
    case 'truncate': {
      if (param === undefined) return { kind: 'truncate', bytes: undefined };
      const bytes = whole(param, 0, FAULT_LIMITS.maxTruncateBytes);
      return bytes === undefined
        ? `truncate:BYTES must be a whole number from 0 to ${FAULT_LIMITS.maxTruncateBytes}`
        : { kind: 'truncate', bytes };
    }
    case 'drip': {
      const bytesPerSecond = whole(param ?? '', FAULT_LIMITS.minDripBytesPerSecond, FAULT_LIMITS.maxDripBytesPerSecond);
      return bytesPerSecond === undefined
        ? `drip must be whole bytes per second from ${FAULT_LIMITS.minDripBytesPerSecond} to ${FAULT_LIMITS.maxDripBytesPerSecond}`
        : { kind: 'drip', bytesPerSecond };
    }
    default:
      return { kind: name };
  }
}

/**
 * Parses a fault of the grammar above. `where` names what carried it (e.g. `Prefer: fault=`); a bad
 * value throws the catalogue's 400 `invalid-fault` saying what is wrong and listing the grammar.
 */
export function parseFault(text: string, where: string): Fault {
  const fault = faultOrReason(text);
  if (typeof fault !== 'string') return fault;
  throw problem(
    'invalidFault',
    `${where}${JSON.stringify(text.slice(0, 60))} is not a fault: ${fault}. Faults: ${FAULT_GRAMMAR}; see docs/faults.md.`,
  );
}

/** The canonical text of a fault (what `parseFault` reads back to the same fault). */
export function faultText(fault: Fault): string {
  switch (fault.kind) {
    case 'status':
      return `status:${fault.status}`;
    case 'delay':
      return fault.minMs === fault.maxMs ? `delay:${fault.minMs}` : `delay:${fault.minMs}-${fault.maxMs}`;
    case 'truncate':
      return fault.bytes === undefined ? 'truncate' : `truncate:${fault.bytes}`;
    case 'drip':
      return `drip:${fault.bytesPerSecond}`;
    default:
      return fault.kind;
  }
}

/**
 * The `fault=` of a Prefer header (RFC 7240: `fault=drop` or quoted, `fault="status:503"`), or undefined.
 * Trailing text stays part of the value (`delay:2000 x`), so `parseFault` refuses it.
 */
export function preferredFault(header: string | undefined): string | undefined {
  return preferenceValue(header, 'fault');
}

/** How many bytes of a `length`-byte body a `truncate` fault sends: always fewer than all of them. */
export function truncatedLength(fault: { bytes: number | undefined }, length: number): number {
  const wanted = fault.bytes ?? Math.floor(length / 2);
  return Math.max(0, Math.min(wanted, length - 1));
}

/** The milliseconds a `delay` fault waits this time (uniform from `minMs` to `maxMs`). */
export function delayMs(fault: { minMs: number; maxMs: number }, random: () => number = Math.random): number {
  return fault.minMs + Math.floor(random() * (fault.maxMs - fault.minMs + 1));
}
