/**
 * Near misses of each operation's path (`values/paths.ts`): the request the operation takes, sent to
 * a path that is not its own, is an unknown path (404, or 405), never redirected there and never
 * answered as the operation. One check per operation the suite can send a valid request to (order
 * info and every create), so a new operation gets it with no code.
 */
import type { CreateOperationId, OperationId } from '../../contract/operations-model.js';
import { judgeNotServedAt } from '../../judgments/request-errors.js';
import { PROFILE } from '../../judgments/rules.js';
import type { CheckContext } from '../context.js';
import type { Exchange } from '../http.js';
import { pathVariants } from '../values/paths.js';
import type { CheckSource } from './helpers.js';
import { validBody } from './request-errors.js';
import type { Check } from './types.js';
import { withQuery } from '../credentials.js';

/** The variants of the operation's path with its parameters (the order number: `--order-number`). */
function variantsOf(ctx: { model: CheckSource['model'] }, op: OperationId, number: string): ReturnType<typeof pathVariants> {
  const model = ctx.model.get(op);
  return pathVariants(model.path, Object.fromEntries(model.pathParams.map((p) => [p, number])));
}

function pathCheck(source: CheckSource, op: OperationId): Check {
  const create = source.model.createIds.find((id) => id === op);
  const title =
    'near misses of the path (a trailing slash, another letter case, another version segment, a doubled slash) are answered 404 (or 405), never redirected to the path or served as the operation';
  return {
    id: `${op}.path-variants-404`,
    level: 'strict',
    operations: [op],
    title,
    rule: PROFILE.pathVariants,
    ...(create !== undefined ? { write: true } : {}),
    cases: variantsOf(source, op, 'ORDER').map((v) => v.name),
    async run(ctx, t) {
      const served = ctx.path(op);
      const body = create !== undefined ? await validBody(ctx, create) : undefined;
      for (const variant of variantsOf(ctx, op, ctx.config.orderNumber))
        await t.judge(
          variant.name,
          () => sendTo(ctx, create, body, variant.path),
          (e) => judgeNotServedAt(e, this.rule, served),
        );
    },
  };
}

/** The operation's valid request (the order with the token; a create's valid body), sent to `path`. */
function sendTo(
  ctx: CheckContext,
  create: CreateOperationId | undefined,
  body: Parameters<CheckContext['sendToCreate']>[1] | undefined,
  path: string,
): Promise<Exchange> {
  if (create !== undefined)
    return ctx.sendToCreate(create, body ?? {}, ctx.credentialsOf(create).headers, {
      path: withQuery(path, ctx.credentialsOf(create).query),
    });
  return ctx.getOrder(ctx.config.orderNumber, undefined, path);
}

/** The path checks of the operations the suite can send a valid request to: order info and every create. */
export function pathChecks(source: CheckSource): Check[] {
  return [...(source.model.orderInfo !== undefined ? [source.model.orderInfo.operationId] : []), ...source.model.createIds].map((op) =>
    pathCheck(source, op),
  );
}
