/**
 * The contract's security, read once: every scheme of `components.securitySchemes` and, per operation,
 * the requirements it states (operation-level `security`, else the document's), as OpenAPI 3.1 means
 * them: a list of alternatives (any one suffices), each a set of schemes (all of them together); an
 * empty alternative (`{}`) lets a request without credentials through; `security: []` turns security off.
 *
 * Where a credential travels follows the scheme: `http` schemes in `Authorization: <scheme> <credential>`
 * (bearer, basic, any other registered scheme); `apiKey` in the header, query parameter or cookie it
 * names; `oauth2` and `openIdConnect` as bearer tokens (RFC 6750, as their access tokens are sent).
 * `mutualTLS` cannot travel over plain HTTP: a contract that needs it is refused with its pointer.
 */
import { isObject, type JsonObject, type OpenApiDocument } from './document.js';
import { escapeToken } from '../util/json-pointer.js';

/** Where a scheme's credential travels. */
export type Carrier =
  /** `Authorization: <scheme> <credential>`; `scheme` lower case (`bearer`, `basic`, ...). */
  | { kind: 'authorization'; scheme: string }
  /** An API key in a header (`name` as declared), a query parameter or a cookie. */
  | { kind: 'apiKey'; in: 'header' | 'query' | 'cookie'; name: string };

export interface SecurityScheme {
  /** The scheme's name in `components.securitySchemes`. */
  name: string;
  /** Its OpenAPI type (`http`, `apiKey`, `oauth2`, `openIdConnect`). */
  type: string;
  carrier: Carrier;
  /** JSON Pointer of the scheme object as written (a `$ref` to another scheme followed). */
  pointer: string;
}

/** One alternative: every scheme in it must be satisfied (empty: no credential needed). */
export type SecurityRequirement = readonly SecurityScheme[];

/** What an operation asks of a request's credentials. */
export interface OperationSecurity {
  /** Any one of these suffices; empty: the operation is not secured. */
  alternatives: readonly SecurityRequirement[];
  /** A request without any credential is refused (no alternative is empty, and there is at least one). */
  secured: boolean;
  /**
   * JSON Pointer of the requirements as written: the operation's own `security`, else the document's
   * (`/security`); absent when neither states any. Alternative `i` is at `<pointer>/i`.
   */
  pointer?: string;
}

/** A contract's security that cannot be served, with the JSON Pointer of the part at fault. */
export class SecurityError extends Error {
  constructor(
    readonly pointer: string,
    reason: string,
  ) {
    super(`the contract's security at ${pointer}: ${reason}`);
    this.name = 'SecurityError';
  }
}

const pointerTo = (...parts: string[]): string => parts.map((p) => `/${escapeToken(p)}`).join('');

/** Reads every security scheme of the document (throws a SecurityError for one that cannot be served). */
export function securitySchemes(doc: OpenApiDocument): Map<string, SecurityScheme> {
  const components = isObject(doc['components']) ? doc['components'] : {};
  const declared = isObject(components['securitySchemes']) ? components['securitySchemes'] : {};
  const schemes = new Map<string, SecurityScheme>();
  for (const [name, value] of Object.entries(declared)) {
    const at = pointerTo('components', 'securitySchemes', name);
    const scheme = resolved(doc, value);
    if (scheme === undefined) throw new SecurityError(at, 'not a security scheme object');
    schemes.set(name, {
      name,
      type: typeof scheme['type'] === 'string' ? scheme['type'] : '',
      carrier: carrierOf(scheme, at),
      pointer: isObject(value) && typeof value['$ref'] === 'string' ? decodeURIComponent(value['$ref'].slice(1)) : at,
    });
  }
  return schemes;
}

function resolved(doc: OpenApiDocument, value: unknown): JsonObject | undefined {
  if (!isObject(value)) return undefined;
  const ref = value['$ref'];
  if (typeof ref === 'string' && ref.startsWith('#/components/securitySchemes/')) {
    const components = isObject(doc['components']) ? doc['components'] : {};
    const schemes = isObject(components['securitySchemes']) ? components['securitySchemes'] : {};
    const target = schemes[ref.slice('#/components/securitySchemes/'.length)];
    return isObject(target) && typeof target['$ref'] !== 'string' ? target : undefined;
  }
  return value;
}

function carrierOf(scheme: JsonObject, at: string): Carrier {
  const type = scheme['type'];
  if (type === 'http') {
    const name = scheme['scheme'];
    if (typeof name !== 'string' || !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name))
      throw new SecurityError(at, 'an http scheme needs "scheme" (an HTTP authentication scheme name such as bearer or basic)');
    return { kind: 'authorization', scheme: name.toLowerCase() };
  }
  if (type === 'apiKey') {
    const where = scheme['in'];
    const name = scheme['name'];
    if (where !== 'header' && where !== 'query' && where !== 'cookie')
      throw new SecurityError(at, 'an apiKey scheme needs "in": header, query or cookie');
    if (typeof name !== 'string' || name === '')
      throw new SecurityError(at, 'an apiKey scheme needs "name" (the header, parameter or cookie)');
    return { kind: 'apiKey', in: where, name: where === 'header' ? name.toLowerCase() : name };
  }
  if (type === 'oauth2' || type === 'openIdConnect') return { kind: 'authorization', scheme: 'bearer' };
  if (type === 'mutualTLS')
    throw new SecurityError(at, 'mutualTLS is a property of the TLS connection, which this harness does not terminate; use http or apiKey');
  throw new SecurityError(at, `unknown type ${JSON.stringify(type)} (http, apiKey, oauth2, openIdConnect)`);
}

/**
 * The security of an operation: its own `security` when it has one, else the document's. `path` and
 * `method` only name the place in errors.
 */
export function operationSecurity(
  doc: OpenApiDocument,
  schemes: ReadonlyMap<string, SecurityScheme>,
  operation: JsonObject,
  path: string,
  method: string,
): OperationSecurity {
  const own = operation['security'];
  const list = Array.isArray(own) ? own : Array.isArray(doc['security']) ? doc['security'] : [];
  const at = Array.isArray(own) ? pointerTo('paths', path, method, 'security') : '/security';
  const alternatives = list.map((requirement, index): SecurityRequirement => {
    if (!isObject(requirement)) throw new SecurityError(`${at}/${index}`, 'a security requirement is an object of scheme names');
    return Object.keys(requirement).map((name) => {
      const scheme = schemes.get(name);
      if (scheme === undefined)
        throw new SecurityError(`${at}/${index}`, `the scheme ${JSON.stringify(name)} is not declared in components.securitySchemes`);
      return scheme;
    });
  });
  return {
    alternatives,
    secured: alternatives.length > 0 && alternatives.every((a) => a.length > 0),
    ...(Array.isArray(own) || Array.isArray(doc['security']) ? { pointer: at } : {}),
  };
}

/** The schemes an operation names in any alternative, once each, in order. */
export function schemesOf(security: OperationSecurity): SecurityScheme[] {
  const seen = new Map<string, SecurityScheme>();
  for (const alternative of security.alternatives) for (const scheme of alternative) seen.set(scheme.name, scheme);
  return [...seen.values()];
}

/** A short description of where a scheme's credential goes (`Authorization: Bearer`, `header X-API-Key`, `query api_key`). */
export function carrierText(carrier: Carrier): string {
  if (carrier.kind === 'authorization') return `Authorization: ${carrier.scheme.charAt(0).toUpperCase()}${carrier.scheme.slice(1)}`;
  return `${carrier.in} ${carrier.name}`;
}
