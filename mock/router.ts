/**
 * Routing from the contract: every path template of the contract becomes a matcher. A path that
 * matches no template is unknown (404); a known path asked with another method is answered 405 with
 * `Allow`. Path parameters are percent-decoded; invalid percent-encoding is a 404 problem.
 */
import type { HttpMethod, OperationSpec } from '../contract/document.js';
import { problem } from './problems.js';
import { printable } from '../util/printable.js';

/** What a router routes to: an operation of the contract, or what a server makes of one (its method and path template). */
export type Routable = Pick<OperationSpec, 'method' | 'path'>;

export type RouteResult<Op extends Routable = OperationSpec> =
  | { kind: 'operation'; operation: Op; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

interface PathRoute<Op> {
  template: string;
  /** Literal segments are strings; parameter segments are `{ param }`. */
  segments: (string | { param: string })[];
  operations: Map<string, Op>;
}

export interface Router<Op extends Routable = OperationSpec> {
  route(method: string, pathname: string): RouteResult<Op>;
  /** The methods the contract allows on a path (upper case), or undefined for an unknown path. */
  allowed(pathname: string): string[] | undefined;
}

function parseTemplate(template: string): PathRoute<unknown>['segments'] {
  return template
    .split('/')
    .slice(1)
    .map((segment) => {
      const match = /^\{([^}]+)\}$/.exec(segment);
      return match?.[1] !== undefined ? { param: match[1] } : segment;
    });
}

function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    // An undecodable segment names no resource: 404 (a status every operation of the contract documents or may answer).
    throw problem(
      'notFound',
      `The path segment "${raw.slice(0, 100)}" has invalid percent-encoding, so it names nothing; encode it with encodeURIComponent.`,
    );
  }
}

const FOUND_CACHE = 256;

export function createRouter<Op extends Routable = OperationSpec>(operations: readonly Op[]): Router<Op> {
  const routes = new Map<string, PathRoute<Op>>();
  for (const operation of operations) {
    let route = routes.get(operation.path);
    if (!route) {
      route = { template: operation.path, segments: parseTemplate(operation.path), operations: new Map() };
      routes.set(operation.path, route);
    }
    route.operations.set(operation.method.toUpperCase(), operation);
  }
  // Templates with fewer parameters first, so a literal path wins over a parameterised one.
  const ordered = [...routes.values()].sort(
    (a, b) => a.segments.filter((s) => typeof s !== 'string').length - b.segments.filter((s) => typeof s !== 'string').length,
  );

  // Paths without parameters (the creates) are found with one map lookup, before any splitting.
  const literal = new Map(ordered.filter((r) => r.segments.every((s) => typeof s === 'string')).map((r) => [r.template, r]));
  const noParams: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);

  // Paths with parameters already matched (clients ask for the same few orders again and again),
  // with their frozen, decoded parameters; at most FOUND_CACHE of them, emptied when full.
  const found = new Map<string, { route: PathRoute<Op>; params: Record<string, string> }>();

  const find = (pathname: string): { route: PathRoute<Op>; params: Record<string, string> } | undefined => {
    const exact = literal.get(pathname);
    if (exact) return { route: exact, params: noParams };
    const known = found.get(pathname);
    if (known) return known;
    const match = matchTemplates(pathname);
    if (match) {
      if (found.size >= FOUND_CACHE) found.clear();
      found.set(pathname, match);
    }
    return match;
  };

  const matchTemplates = (pathname: string): { route: PathRoute<Op>; params: Record<string, string> } | undefined => {
    const parts = pathname.split('/').slice(1);
    for (const route of ordered) {
      if (route.segments.length !== parts.length) continue;
      const raw: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const segment = route.segments[i];
        const part = parts[i] ?? '';
        if (typeof segment === 'string') ok = segment === part;
        else if (segment !== undefined) {
          ok = part.length > 0;
          raw[segment.param] = part;
        }
      }
      if (!ok) continue;
      const params: Record<string, string> = Object.create(null) as Record<string, string>;
      for (const [name, value] of Object.entries(raw)) params[name] = decodeSegment(value);
      return { route, params: Object.freeze(params) };
    }
    return undefined;
  };

  return {
    route(method, pathname) {
      const found = find(pathname);
      if (!found) return { kind: 'not-found' };
      const operation = found.route.operations.get(method.toUpperCase());
      if (!operation) return { kind: 'method-not-allowed', allow: [...found.route.operations.keys()] };
      return { kind: 'operation', operation, params: found.params };
    },
    allowed(pathname) {
      const parts = pathname.split('/').slice(1);
      for (const route of ordered) {
        if (route.segments.length !== parts.length) continue;
        if (route.segments.every((s, i) => typeof s !== 'string' || s === parts[i])) return [...route.operations.keys()];
      }
      return undefined;
    },
  };
}

/**
 * The operation a request names, or a 404/405 problem. HEAD is answered wherever GET is (RFC 9110
 * §9.3.2: the GET's status and headers, without the body; Node drops the body of a HEAD answer).
 */
export function routeRequest<Op extends Routable>(
  router: Router<Op>,
  method: string,
  pathname: string,
): { operation: Op; params: Record<string, string> } {
  let route = router.route(method, pathname);
  if (route.kind === 'method-not-allowed' && method === 'HEAD' && route.allow.includes('GET')) route = router.route('GET', pathname);
  if (route.kind === 'not-found') {
    throw problem('notFound', `There is no operation at ${printable(pathname)}; the contract (contract/openapi.yaml) lists the paths.`);
  }
  if (route.kind === 'method-not-allowed') {
    const allow = allowHeader(route.allow);
    throw problem('methodNotAllowed', `${printable(pathname)} allows only ${allow}.`, undefined, { Allow: allow });
  }
  return route;
}

/** The `Allow` value of a path: its methods, HEAD where GET is, and OPTIONS. */
export function allowHeader(methods: readonly string[]): string {
  const all = [...methods];
  if (all.includes('GET') && !all.includes('HEAD')) all.splice(all.indexOf('GET') + 1, 0, 'HEAD');
  if (!all.includes('OPTIONS')) all.push('OPTIONS');
  return all.join(', ');
}

export type { HttpMethod };
