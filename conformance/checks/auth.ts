/** Bearer authentication on every operation: no 2xx without accepted credentials (spec), 401 + challenge (strict). */
import type { CheckContext } from '../context.js';
import type { Exchange } from '../http.js';
import { OPERATION_IDS, type OperationId } from '../operations.js';
import { PROFILE, SPEC } from '../rules.js';
import { bearerChallenge, is2xx } from './helpers.js';
import type { Check } from './types.js';

type Variant = 'missing' | 'non-bearer' | 'rejected';

const VARIANTS: Record<Variant, string> = {
  missing: 'no Authorization header',
  'non-bearer': 'a non-Bearer scheme (Basic)',
  rejected: 'a token the server does not accept',
};

/** The Basic credentials sent by the non-Bearer variant (redacted in reports). */
export function basicCredentials(token: string): string {
  return Buffer.from(`conformance:${token}`).toString('base64');
}

function headersFor(ctx: CheckContext, variant: Variant): Record<string, string> {
  if (variant === 'missing') return {};
  if (variant === 'non-bearer') return { authorization: `Basic ${basicCredentials(ctx.config.token)}` };
  return ctx.bearer(ctx.config.rejectedToken);
}

/** One request per (operation, variant), shared by the spec and the strict check. */
function request(ctx: CheckContext, op: OperationId, variant: Variant): Promise<Exchange> {
  return ctx.memo(`auth/${op}/${variant}`, async () => {
    const headers = headersFor(ctx, variant);
    if (op === 'getOrderInfo') return ctx.getOrder(ctx.config.orderNumber, headers);
    return ctx.post(op, await ctx.body(op, `auth-${variant}`), headers);
  });
}

function specCheck(op: OperationId, variant: Variant): Check {
  return {
    id: `${op}.auth-${variant}-no-2xx`,
    level: 'spec',
    operations: [op],
    title: `${VARIANTS[variant]}: no 2xx answer`,
    rule: SPEC.auth,
    write: op !== 'getOrderInfo',
    async run(ctx) {
      ctx.expect.status(await request(ctx, op, variant), this.rule, (s) => !is2xx(s), 'any status but 2xx');
    },
  };
}

function strictCheck(op: OperationId, variant: Variant): Check {
  return {
    id: `${op}.auth-${variant}-401`,
    level: 'strict',
    operations: [op],
    title: `${VARIANTS[variant]}: 401 with WWW-Authenticate: Bearer${variant === 'rejected' ? ' error="invalid_token"' : ''}`,
    rule: PROFILE.unauthorized,
    write: op !== 'getOrderInfo',
    async run(ctx) {
      const exchange = await request(ctx, op, variant);
      const answered = ctx.expect.status(exchange, this.rule, 401);
      const header = answered.answer.headers['www-authenticate'];
      const challenge = bearerChallenge(header);
      if (challenge === undefined) {
        throw ctx.expect.failure(
          exchange,
          this.rule,
          'a WWW-Authenticate header with a Bearer challenge',
          header === undefined ? 'no WWW-Authenticate header' : `WWW-Authenticate: ${header}`,
        );
      }
      if (variant === 'rejected' && !/error\s*=\s*"?invalid_token"?/i.test(challenge)) {
        throw ctx.expect.failure(exchange, this.rule, 'WWW-Authenticate: Bearer … error="invalid_token"', `WWW-Authenticate: ${header}`);
      }
    },
  };
}

export const authChecks: Check[] = OPERATION_IDS.flatMap((op) =>
  (Object.keys(VARIANTS) as Variant[]).flatMap((variant) => [specCheck(op, variant), strictCheck(op, variant)]),
);
