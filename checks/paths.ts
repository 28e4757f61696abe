/**
 * Near misses of each operation's path: the request the operation takes, sent to a path that is not
 * its own, is an unknown path (404, or 405), never redirected there and never answered as the
 * operation. One check per operation the suite can send a valid request to (order info and every
 * create), so a new operation gets it with no code. Its cases come from the path template: paths a
 * client reaches by a slip, a framework's default or an old link, each of them another path than the
 * operation's (RFC 3986 §6.2.2.1: the path is case-sensitive; §3.3: an empty segment and a trailing
 * slash are segments of their own). A server that serves one of them as the operation
 * (case-insensitive routing, merged slashes, any version), or redirects it there, passes a check that
 * only sends invented paths.
 */
import type { CreateOperationId, OperationId, OperationsModel } from '../contract/operations-model.js';
import { judgeNotServedAt } from '../judgments/request-errors.js';
import { PROFILE } from '../judgments/rules.js';
import { withQuery } from '../util/query.js';
import { defineCheck, type SuiteContext, type SuiteExchange } from './define.js';

export interface PathVariant {
  /** The class, e.g. `a trailing slash`. */
  name: string;
  /** The path as sent (parameters URL-encoded). */
  path: string;
}

type Segment = { literal: string } | { param: string };

function segmentsOf(template: string): Segment[] {
  return template
    .split('/')
    .slice(1)
    .map((segment) => {
      const match = /^\{([^}]+)\}$/.exec(segment);
      return match?.[1] !== undefined ? { param: match[1] } : { literal: segment };
    });
}

function render(segments: readonly Segment[], params: Readonly<Record<string, string>>): string {
  return segments.map((s) => `/${'literal' in s ? s.literal : encodeURIComponent(params[s.param] ?? '')}`).join('');
}

const swapCase = (text: string): string => [...text].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');

/** A version segment (`v1`, `V2`): the interface version in the path. */
const VERSION = /^v(\d+)$/i;

/**
 * The near misses of the path `template` with its `params`: a trailing slash; every literal segment
 * in the other letter case; each version segment (`/^v\d+$/`) bumped; the slash before the last
 * literal segment doubled. A class the template has nothing for (no letter, no version segment) is
 * left out.
 */
export function pathVariants(template: string, params: Readonly<Record<string, string>>): PathVariant[] {
  const segments = segmentsOf(template);
  const out: PathVariant[] = [{ name: 'a trailing slash', path: `${render(segments, params)}/` }];
  const swapped = segments.map((s) => ('literal' in s ? { literal: swapCase(s.literal) } : s));
  if (render(swapped, params) !== render(segments, params))
    out.push({ name: 'another letter case (every literal segment)', path: render(swapped, params) });
  const versions = segments.flatMap((s) => ('literal' in s ? [VERSION.exec(s.literal)] : [])).filter((m) => m !== null);
  if (versions.length > 0) {
    const bumped = segments.map((s): Segment => {
      if (!('literal' in s)) return s;
      const match = VERSION.exec(s.literal);
      return match ? { literal: `${s.literal.charAt(0)}${Number(match[1]) + 1}` } : s;
    });
    const from = versions.map((m) => m[0]).join(', ');
    out.push({ name: `another version segment (${from} bumped by one)`, path: render(bumped, params) });
  }
  const last = segments.findLastIndex((s) => 'literal' in s);
  if (last > 0) {
    const doubled = [...segments.slice(0, last), { literal: '' }, ...segments.slice(last)];
    out.push({ name: 'a doubled slash (before the last literal segment)', path: render(doubled, params) });
  }
  return out;
}

/** The variants of the operation's path with its parameters (the order number: `--order-number`). */
function variantsOf(model: OperationsModel, op: OperationId, number: string): PathVariant[] {
  const operation = model.get(op);
  return pathVariants(operation.path, Object.fromEntries(operation.pathParams.map((p) => [p, number])));
}

/** The operation's valid request (the order with the token; a create's valid body), sent to `path`. */
function sendTo<X extends SuiteExchange>(ctx: SuiteContext<X>, create: CreateOperationId | undefined, path: string): Promise<X> {
  if (create === undefined) return ctx.getOrder(ctx.config.orderNumber, undefined, path);
  const { headers, query } = ctx.credentialsOf(create);
  return ctx.validBody(create).then((body) => ctx.sendToCreate(create, body, headers, { path: withQuery(path, query) }));
}

/** The operations the suite can send a valid request to: order info and every create. */
const servable = (model: OperationsModel): OperationId[] => [
  ...(model.orderInfo !== undefined ? [model.orderInfo.operationId] : []),
  ...model.createIds,
];

export const pathVariants404 = defineCheck({
  name: 'path-variants-404',
  level: 'strict',
  operations: servable,
  title:
    'near misses of the path (a trailing slash, another letter case, another version segment, a doubled slash) are answered 404 (or 405), never redirected to the path or served as the operation',
  rule: PROFILE.pathVariants,
  write: (op, model) => model.isCreate(op),
  cases: (source, op) => variantsOf(source.model, op, 'ORDER').map((v) => v.name),
  async run(ctx, t, op) {
    const served = ctx.path(op);
    const create = ctx.model.isCreate(op) ? op : undefined;
    for (const variant of variantsOf(ctx.model, op, ctx.config.orderNumber))
      await t.judge(
        variant.name,
        () => sendTo(ctx, create, variant.path),
        (e) => judgeNotServedAt(e, PROFILE.pathVariants, served),
      );
  },
  // A trailing slash redirected to the path (307), letter case ignored, any version served, slashes merged.
  faults: (op) => [
    { faults: [`path-trailing-slash-redirect:${op}`] },
    { faults: [`path-case-insensitive:${op}`] },
    { faults: [`path-any-version:${op}`] },
    { faults: [`path-merge-slashes:${op}`] },
  ],
});
