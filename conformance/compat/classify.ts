/**
 * The rules: which way a change moves what is allowed, and what that does to a client and to a server
 * written for the old contract, with the one-line reason a reviewer reads.
 *
 * A request schema is what servers accept: narrowing it refuses requests a v1 client may send (breaking
 * for clients) and leaves a v1 server accepting what the new gate requires refused (breaking for
 * servers); widening it keeps v1 clients working but a v1 server refuses what the new contract allows
 * (breaking for servers). An answer schema is what clients read: narrowing it keeps v1 clients working
 * but a v1 server may answer what the new contract refuses; widening it may give a v1 client answers it
 * was not written for, unless the member is the echo of what the client sent (a v1 client sends only
 * what v1 allows, so it gets only that back).
 */
import type { JsonValue } from '../../contract/document.js';
import { SCHEMA_EXTENSIONS } from '../../contract/extensions.js';
import type { Direction, Effect, Place } from './model.js';

export interface Verdict {
  direction: Direction;
  clients: Effect;
  servers: Effect;
  reason: string;
}

const LOWER = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties']);
const UPPER = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties']);
/** Keywords that only restrict when present (`true`, a string, a schema): present → narrowed, absent → widened. */
const PRESENCE = new Set(['const', 'pattern', 'format', 'oneOf', 'anyOf', 'not']);
/** Keywords saying what a server fills in for a member left out (`default` and the contract's extensions for it). */
const FILLED_IN: ReadonlySet<string> = new Set(['default', ...SCHEMA_EXTENSIONS]);
/** Keywords about what the server does with a request (assigns, fills in): judged on the request only. */
export const REQUEST_ONLY: ReadonlySet<string> = new Set(['readOnly', 'writeOnly', ...FILLED_IN]);

export function sameValue(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** `x` for a value in a reason (strings quoted, long values cut). */
export function shown(value: JsonValue | undefined): string {
  const text = value === undefined ? 'none' : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function types(value: JsonValue | undefined): Set<string> | undefined {
  if (typeof value === 'string') return new Set([value]);
  if (Array.isArray(value)) return new Set(value.filter((t): t is string => typeof t === 'string'));
  return undefined;
}

/** Every value of `a` is allowed by `b` (`integer` is within `number`). */
function typesWithin(a: Set<string>, b: Set<string>): boolean {
  return [...a].every((t) => b.has(t) || (t === 'integer' && b.has('number')));
}

function setDirection(lost: boolean, gained: boolean): Direction | undefined {
  if (lost && gained) return 'changed';
  if (lost) return 'narrowed';
  if (gained) return 'widened';
  return undefined;
}

/** `false` closes an object; `true` or absent leaves it open; a schema is another rule. */
function closedness(value: JsonValue | undefined): 'open' | 'closed' | 'schema' {
  if (value === undefined || value === true) return 'open';
  if (value === false) return 'closed';
  return 'schema';
}

/** Which way the values a schema allows move when a keyword goes from `a` to `b`; undefined: they do not. */
export function keywordDirection(keyword: string, a: JsonValue | undefined, b: JsonValue | undefined): Direction | undefined {
  if (sameValue(a, b)) return undefined;
  if (LOWER.has(keyword) || UPPER.has(keyword)) {
    if (a === undefined) return 'narrowed';
    if (b === undefined) return 'widened';
    if (typeof a !== 'number' || typeof b !== 'number') return 'changed';
    return b > a === LOWER.has(keyword) ? 'narrowed' : 'widened';
  }
  if (keyword === 'type') {
    const before = types(a);
    const after = types(b);
    if (!before) return 'narrowed';
    if (!after) return 'widened';
    return setDirection(!typesWithin(before, after), !typesWithin(after, before));
  }
  if (keyword === 'enum') {
    if (!Array.isArray(a)) return 'narrowed';
    if (!Array.isArray(b)) return 'widened';
    const before = new Set(a.map((v) => JSON.stringify(v)));
    const after = new Set(b.map((v) => JSON.stringify(v)));
    return setDirection(
      [...before].some((v) => !after.has(v)),
      [...after].some((v) => !before.has(v)),
    );
  }
  if (keyword === 'multipleOf') {
    if (a === undefined) return 'narrowed';
    if (b === undefined) return 'widened';
    if (typeof a !== 'number' || typeof b !== 'number') return 'changed';
    if (Number.isInteger(b / a)) return 'narrowed';
    if (Number.isInteger(a / b)) return 'widened';
    return 'changed';
  }
  if (keyword === 'uniqueItems') return a === true ? 'widened' : b === true ? 'narrowed' : undefined;
  if (keyword === 'additionalProperties' || keyword === 'unevaluatedProperties') {
    const before = closedness(a);
    const after = closedness(b);
    if (before === after && before !== 'schema') return undefined;
    if (before === 'open' && after === 'closed') return 'narrowed';
    if (before === 'closed' && after === 'open') return 'widened';
    return 'changed';
  }
  if (PRESENCE.has(keyword)) return a === undefined ? 'narrowed' : b === undefined ? 'widened' : 'changed';
  return 'changed';
}

/** `maximum 10000 added`, `maximum 10000 → 5000`, `enum: "BLOCKED" removed`. */
export function describe(keyword: string, a: JsonValue | undefined, b: JsonValue | undefined): string {
  if (keyword === 'enum' && Array.isArray(a) && Array.isArray(b)) {
    const removed = a.filter((v) => !b.some((w) => sameValue(v, w))).map((v) => shown(v));
    const added = b.filter((v) => !a.some((w) => sameValue(v, w))).map((v) => shown(v));
    return [removed.length > 0 ? `enum: ${removed.join(', ')} removed` : '', added.length > 0 ? `enum: ${added.join(', ')} added` : '']
      .filter((part) => part !== '')
      .join('; ');
  }
  if (a === undefined) return `${keyword} ${shown(b)} added`;
  if (b === undefined) return `${keyword} ${shown(a)} removed`;
  return `${keyword} ${shown(a)} → ${shown(b)}`;
}

const CONSEQUENCE: Record<Exclude<Place, 'operation'>, Record<Direction, Omit<Verdict, 'direction' | 'reason'> & { why: string }>> = {
  request: {
    narrowed: {
      clients: 'breaking',
      servers: 'breaking',
      why: 'a request a v1 client may send is refused now, and a v1 server accepts a request the new contract refuses',
    },
    widened: {
      clients: 'compatible',
      servers: 'breaking',
      why: "v1 clients' requests still fit, but a v1 server refuses a request the new contract allows",
    },
    changed: {
      clients: 'breaking',
      servers: 'breaking',
      why: 'some v1 requests are refused now, and a v1 server refuses some requests the new contract allows',
    },
  },
  answer: {
    narrowed: {
      clients: 'compatible',
      servers: 'breaking',
      why: 'v1 clients read every new answer, but a v1 server may answer what the new contract refuses',
    },
    widened: {
      clients: 'breaking',
      servers: 'compatible',
      why: "a v1 client may get an answer it was not written for; v1 servers' answers still fit",
    },
    changed: {
      clients: 'breaking',
      servers: 'breaking',
      why: "a v1 client may get an answer it was not written for, and a v1 server's answer may not fit",
    },
  },
};

/** The verdict of a schema keyword's change in a request or an answer; undefined when nothing changed. */
export function keywordVerdict(
  place: 'request' | 'answer',
  keyword: string,
  a: JsonValue | undefined,
  b: JsonValue | undefined,
  options: { echoed?: boolean } = {},
): Verdict | undefined {
  const what = describe(keyword, a, b);
  if (place === 'request' && keyword === 'readOnly') {
    if ((a === true) === (b === true)) return undefined;
    const reason =
      b === true
        ? `made read-only: a v1 client that sets it finds its value ignored, and a v1 server takes the value the new contract says it assigns`
        : `made writable (readOnly removed): a v1 client that sends it (ignored in v1) now sets it, and a v1 server ignores the value the new contract takes`;
    return { direction: 'changed', clients: 'breaking', servers: 'breaking', reason };
  }
  if (place === 'request' && FILLED_IN.has(keyword)) {
    if (sameValue(a, b)) return undefined;
    if (a === undefined)
      return {
        direction: 'narrowed',
        clients: 'compatible',
        servers: 'breaking',
        reason: `${what}: v1 promised nothing when it is omitted, and a v1 server does not fill it in`,
      };
    if (b === undefined)
      return {
        direction: 'widened',
        clients: 'breaking',
        servers: 'compatible',
        reason: `${what}: a v1 client that omits it no longer gets ${shown(a)}`,
      };
    return {
      direction: 'changed',
      clients: 'breaking',
      servers: 'breaking',
      reason: `${what}: a v1 client that omits it gets ${shown(b)}, not ${shown(a)}, and a v1 server fills in ${shown(a)}`,
    };
  }
  if (keyword === 'writeOnly') {
    if ((a === true) === (b === true)) return undefined;
    return {
      direction: 'changed',
      clients: 'breaking',
      servers: 'breaking',
      reason: `${what}: whether the member is answered changes for v1 clients and v1 servers alike`,
    };
  }
  const direction = keywordDirection(keyword, a, b);
  if (!direction) return undefined;
  if (place === 'answer' && options.echoed === true && direction === 'widened') {
    return {
      direction,
      clients: 'compatible',
      servers: 'compatible',
      reason: `${what}: the answer echoes what the client sent, and a v1 client sends only what v1 allows; v1 servers' answers still fit`,
    };
  }
  const effect = CONSEQUENCE[place][direction];
  return { direction, clients: effect.clients, servers: effect.servers, reason: `${what}: ${effect.why}` };
}

/** A member listed as required, or no longer. */
export function requiredVerdict(place: 'request' | 'answer', nowRequired: boolean): Verdict {
  if (place === 'request')
    return nowRequired
      ? {
          direction: 'narrowed',
          clients: 'breaking',
          servers: 'breaking',
          reason: 'now required: a v1 client that omits it is refused, and a v1 server accepts a request without it',
        }
      : {
          direction: 'widened',
          clients: 'compatible',
          servers: 'breaking',
          reason: 'no longer required: v1 clients send it anyway, but a v1 server refuses a request without it',
        };
  return nowRequired
    ? {
        direction: 'narrowed',
        clients: 'compatible',
        servers: 'breaking',
        reason: 'now required in the answer: v1 clients get it anyway, but a v1 server may answer without it',
      }
    : {
        direction: 'widened',
        clients: 'breaking',
        servers: 'compatible',
        reason: 'no longer required in the answer (made optional): a v1 client that reads it may find it missing',
      };
}

/** A member added to or removed from a request or an answer object (whether it is required is a change of its own). */
export function memberVerdict(place: 'request' | 'answer', added: boolean, facts: { oldClosed: boolean; newClosed: boolean }): Verdict {
  if (place === 'request') {
    if (added)
      return {
        direction: 'widened',
        clients: 'compatible',
        servers: 'breaking',
        reason: `new member: v1 clients need not send it, but a v1 server ${facts.oldClosed ? 'refuses it (unknown member)' : 'ignores it'}`,
      };
    return {
      direction: 'narrowed',
      clients: 'breaking',
      servers: facts.newClosed ? 'breaking' : 'compatible',
      reason: facts.newClosed
        ? 'member removed: a v1 client that sends it is refused (unknown member), and a v1 server accepts it'
        : 'member removed: what a v1 client sends in it is no longer part of the contract',
    };
  }
  if (added)
    return facts.oldClosed
      ? {
          direction: 'widened',
          clients: 'breaking',
          servers: 'compatible',
          reason: 'new member of a closed answer object: a v1 client may refuse a member it does not know',
        }
      : {
          direction: 'widened',
          clients: 'compatible',
          servers: 'compatible',
          reason:
            'new member of the answer: v1 clients ignore members they do not know, and a v1 server need not answer it while it is optional',
        };
  return {
    direction: 'widened',
    clients: 'breaking',
    servers: facts.newClosed ? 'breaking' : 'compatible',
    reason: facts.newClosed
      ? 'member removed from the answer: a v1 client that reads it finds it missing, and a v1 server still answers it'
      : 'member removed from the answer: a v1 client that reads it finds it missing (or anything in it)',
  };
}

/** An operation-level fact: its place, statuses, body limit, request body (security: `securityVerdict`). */
export function operationVerdict(aspect: string, a: JsonValue | undefined, b: JsonValue | undefined): Verdict | undefined {
  if (sameValue(a, b)) return undefined;
  switch (aspect) {
    case 'operation':
      return a === undefined
        ? {
            direction: 'widened',
            clients: 'compatible',
            servers: 'breaking',
            reason: 'operation added: v1 clients do not call it, and a v1 server does not serve it',
          }
        : {
            direction: 'narrowed',
            clients: 'breaking',
            servers: 'compatible',
            reason: 'operation removed: a v1 client that calls it is answered 404 or 405',
          };
    case 'method-path':
      return {
        direction: 'changed',
        clients: 'breaking',
        servers: 'breaking',
        reason: `moved from ${shown(a)} to ${shown(b)}: v1 clients call the old place, and a v1 server serves it`,
      };
    case 'success-status':
      return {
        direction: 'changed',
        clients: 'breaking',
        servers: 'breaking',
        reason: `success status ${shown(a)} → ${shown(b)}: a v1 client expects ${shown(a)}, and a v1 server answers it`,
      };
    case 'error-status':
      return a === undefined
        ? {
            direction: 'changed',
            clients: 'breaking',
            servers: 'breaking',
            reason: `${shown(b)} documented: a v1 client may get a status v1 does not document, and a v1 server answers that case otherwise`,
          }
        : {
            direction: 'narrowed',
            clients: 'compatible',
            servers: 'breaking',
            reason: `${shown(a)} no longer documented: a v1 server still answers it`,
          };
    case 'max-body-bytes':
    case 'request-body-required':
    case 'media-types': {
      const direction = bodyDirection(aspect, a, b);
      const effect = CONSEQUENCE.request[direction];
      return { direction, clients: effect.clients, servers: effect.servers, reason: `${describe(aspect, a, b)}: ${effect.why}` };
    }
    default:
      return { direction: 'changed', clients: 'breaking', servers: 'breaking', reason: `${describe(aspect, a, b)}` };
  }
}

function bodyDirection(aspect: string, a: JsonValue | undefined, b: JsonValue | undefined): Direction {
  if (aspect === 'max-body-bytes') {
    if (typeof a !== 'number') return 'narrowed';
    if (typeof b !== 'number') return 'widened';
    return b < a ? 'narrowed' : 'widened';
  }
  if (aspect === 'request-body-required') return b === true ? 'narrowed' : 'widened';
  const before = new Set(Array.isArray(a) ? a.map(String) : []);
  const after = new Set(Array.isArray(b) ? b.map(String) : []);
  return (
    setDirection(
      [...before].some((m) => !after.has(m)),
      [...after].some((m) => !before.has(m)),
    ) ?? 'changed'
  );
}

/** An object schema refuses members it does not list. */
export function isClosed(keywords: ReadonlyMap<string, { value: JsonValue }>): boolean {
  return keywords.get('additionalProperties')?.value === false || keywords.get('unevaluatedProperties')?.value === false;
}

/**
 * How a security change moves the requests an operation accepts, seen from the credentials a client
 * sends (a set of schemes satisfying one alternative): `lost`, some credentials v1 accepted are refused
 * now; `gained`, some credentials are accepted that v1 refused.
 */
export interface CredentialsMoved {
  lost: boolean;
  gained: boolean;
}

const SECURITY_WHY: Record<Direction, string> = {
  narrowed: 'a v1 client sending what v1 asks for is refused now, and a v1 server accepts requests the new contract refuses',
  widened: 'what v1 clients send is still accepted, but a v1 server refuses requests the new contract accepts',
  changed: 'a v1 client sending what v1 asks for is refused now, and a v1 server refuses the credentials the new contract asks for',
};

/**
 * The verdict of a change of an operation's security (`what` says what changed). Credentials are what
 * a server accepts, so they move as a request schema does: fewer accepted (narrowed) breaks v1 clients
 * and leaves a v1 server accepting what the new gate refuses; more accepted (widened) keeps v1 clients
 * working, but a v1 server refuses the new credentials; some of each (changed) breaks both. A change
 * that moves nothing on the wire (a scheme renamed, its credential sent as before) breaks neither.
 */
export function securityVerdict(what: string, moved: CredentialsMoved): Verdict {
  const direction = setDirection(moved.lost, moved.gained);
  if (direction === undefined)
    return {
      direction: 'changed',
      clients: 'compatible',
      servers: 'compatible',
      reason: `${what}: every request v1 accepts is accepted, and no other; nothing changes for v1 clients or v1 servers`,
    };
  const effect = CONSEQUENCE.request[direction];
  return { direction, clients: effect.clients, servers: effect.servers, reason: `${what}: ${SECURITY_WHY[direction]}` };
}
