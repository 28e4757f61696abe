/**
 * Bearer authentication on every operation: no 2xx without accepted credentials (spec), 401 + the
 * Bearer challenge (strict). Every way credentials can be missing, presented under another scheme,
 * malformed or rejected is a case of its class; each class is sent both on a kept-alive connection
 * right after an authenticated request and on fresh connections (`afterAuthenticated`).
 */
import { is2xx } from '../../judgments/answer.js';
import { bearerChallenge, judgeNoAccessWithout, judgeUnauthorized, type CredentialClass } from '../../judgments/auth.js';
import type { OperationId } from '../../contract/operations-model.js';
import { PROFILE, SPEC } from '../../judgments/rules.js';
import type { ConformanceConfig } from '../config.js';
import type { CheckContext } from '../context.js';
import type { Exchange, HttpRequest } from '../http.js';
import type { CheckSource } from './helpers.js';
import type { Check } from './types.js';

const TITLES: Record<CredentialClass, string> = {
  missing: 'credentials missing',
  'non-bearer': 'the token under a scheme other than Bearer',
  rejected: 'a bearer token the server must not accept',
  malformed: 'a malformed bearer credential containing the token',
};

/** The user of the Basic credentials the non-Bearer class sends (the token is the password). */
export const BASIC_USER = 'conformance';

/** The Basic credentials sent by the non-Bearer class (redacted in reports). */
export function basicCredentials(token: string): string {
  return Buffer.from(`${BASIC_USER}:${token}`).toString('base64');
}

interface CredentialCase {
  name: string;
  /** The Authorization header, or undefined for none. */
  authorization: string | undefined;
}

/** The cases of each class (a pure function of the configured tokens). */
export function credentialCases(config: Pick<ConformanceConfig, 'token' | 'rejectedToken'>): Record<CredentialClass, CredentialCase[]> {
  const { token, rejectedToken } = config;
  const swapped = [...token].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
  return {
    missing: [
      { name: 'no Authorization header', authorization: undefined },
      { name: 'an empty Authorization header', authorization: '' },
      { name: 'scheme Bearer without a token', authorization: 'Bearer' },
    ],
    'non-bearer': [
      { name: 'scheme Basic (the token as password)', authorization: `Basic ${basicCredentials(token)}` },
      { name: 'scheme Token with the token', authorization: `Token ${token}` },
      { name: 'the token without a scheme', authorization: token },
      { name: 'the token glued to "Bearer" (no space)', authorization: `Bearer${token}` },
    ],
    rejected: [
      { name: 'the --rejected-token', authorization: `Bearer ${rejectedToken}` },
      { name: 'the token with a suffix', authorization: `Bearer ${token}x` },
      ...(token.length > 1 ? [{ name: 'a prefix of the token', authorization: `Bearer ${token.slice(0, -1)}` }] : []),
      ...(swapped !== token ? [{ name: 'the token in another letter case', authorization: `Bearer ${swapped}` }] : []),
    ],
    malformed: [
      { name: 'the token in double quotes', authorization: `Bearer "${token}"` },
      { name: 'the token followed by a second word', authorization: `Bearer ${token} ${token}` },
      { name: 'the token followed by a comma and another credential', authorization: `Bearer ${token}, Basic ${basicCredentials(token)}` },
    ],
  };
}

const DOCUMENTED = credentialCases({ token: 'Ab1', rejectedToken: 'invalid' });

/**
 * The realm of goods-mock's Bearer challenge (`REALM` in mock/auth.ts: the suite reaches the mock only
 * through its public API; `auth.test.ts` runs the suite against the mock and keeps the two equal).
 */
export const MOCK_REALM = 'goods-mock';

/** The answer's Bearer challenge names goods-mock's realm: the server is this project's mock. */
export function isGoodsMock(exchange: Exchange | undefined): boolean {
  const challenge = bearerChallenge(exchange?.answer?.headers['www-authenticate']);
  return challenge !== undefined && /\brealm\s*=\s*"([^"]*)"/i.exec(challenge)?.[1] === MOCK_REALM;
}

const accepted = (exchange: Exchange | undefined): boolean => exchange?.answer !== undefined && is2xx(exchange.answer.status);
const refused = (exchange: Exchange | undefined): boolean => exchange?.answer !== undefined && !is2xx(exchange.answer.status);

/**
 * The server accepts any token: `--rejected-token` was refused while every token made from `--token`
 * (a suffix, a prefix, another letter case) was accepted. What to say about it, with how to start
 * goods-mock with `--token` when the refusal names its realm; undefined otherwise.
 */
export function anyTokenNote(rejected: Exchange | undefined, derived: readonly (Exchange | undefined)[]): string | undefined {
  if (!refused(rejected) || derived.length === 0 || !derived.every(accepted)) return undefined;
  const note = `the server accepts any token: the --rejected-token was refused (${rejected?.answer?.status ?? ''}), but every token made from --token (with a suffix, a prefix, another letter case) was accepted`;
  return isGoodsMock(rejected)
    ? `${note}; this is goods-mock (WWW-Authenticate realm="${MOCK_REALM}"), which accepts any well-formed token unless started with --token: start it with \`npm start -- --token TOKEN\` (or \`npx goods-mock --token TOKEN\`), TOKEN being the token of this run`
    : note;
}

/** The note of `anyTokenNote` for a whole run's traffic (the first operation showing it), for the summary's hints. */
export function anyTokenHint(history: readonly Exchange[], config: Pick<ConformanceConfig, 'token' | 'rejectedToken'>): string | undefined {
  const [rejected, ...derived] = credentialCases(config).rejected.map((c) => c.authorization);
  for (const operation of new Set(history.map((e) => e.request.operation))) {
    const mine = history.filter((e) => e.request.operation === operation);
    const sentWith = (authorization: string | undefined): Exchange | undefined =>
      mine.find((e) => e.request.headers['authorization'] === authorization);
    const note = anyTokenNote(sentWith(rejected), derived.map(sentWith));
    if (note !== undefined) return note;
  }
  return undefined;
}

/**
 * Where a credential case goes out, as real clients send: the first case of each class (and every
 * other one after it) on a kept-alive connection that has just carried an authenticated request (a
 * server that keeps authentication per connection then serves it), the others on a fresh connection
 * (the first request of a new client). Fixed by the case's place in its class, never by the seed.
 */
export function afterAuthenticated(index: number): boolean {
  return index % 2 === 0;
}

/** One request per (operation, case), shared by the spec and the strict check. */
function request(ctx: CheckContext, op: OperationId, credentials: CredentialCase, index: number): Promise<Exchange> {
  return ctx.memo(`auth/${op}/${credentials.name}`, async () => {
    const headers: Record<string, string> = credentials.authorization === undefined ? {} : { authorization: credentials.authorization };
    let sent: HttpRequest;
    if (ctx.model.isCreate(op)) {
      const [first] = await ctx.corpus(op);
      sent = ctx.createRequest(op, first?.body ?? {}, headers);
    } else if (op === ctx.model.orderInfo.operationId) sent = ctx.orderRequest(ctx.config.orderNumber, headers);
    else {
      // Any other operation of the contract: its method and path (parameters filled in); credentials are judged before anything else.
      const model = ctx.model.get(op);
      sent = {
        operation: op,
        method: model.method,
        path: ctx.model.pathOf(op, Object.fromEntries(model.pathParams.map((p) => [p, ctx.config.orderNumber]))),
        headers: { accept: 'application/json', ...headers },
      };
    }
    return afterAuthenticated(index) ? ctx.afterAuthenticated(sent) : ctx.fresh(sent);
  });
}

function check(source: CheckSource, op: OperationId, credentials: CredentialClass, level: 'spec' | 'strict'): Check {
  return {
    id: level === 'spec' ? `${op}.auth-${credentials}-no-2xx` : `${op}.auth-${credentials}-401`,
    level,
    operations: [op],
    title:
      level === 'spec'
        ? `${TITLES[credentials]}: no 2xx answer`
        : `${TITLES[credentials]}: 401 with WWW-Authenticate: Bearer${credentials === 'rejected' ? ' error="invalid_token"' : ''}`,
    rule: level === 'spec' ? SPEC.auth : PROFILE.unauthorized,
    write: source.model.isCreate(op),
    cases: DOCUMENTED[credentials].map((c) => c.name),
    async run(ctx, t) {
      const cases = credentialCases(ctx.config)[credentials];
      const [first, ...derived] = cases;
      // For the rejected class: the --rejected-token refused while every token made from --token is accepted means
      // any token is (the requests are memoized: each is sent once, and shared with the other level's check).
      const anyToken = async (): Promise<string | undefined> => {
        if (credentials !== 'rejected' || first === undefined) return undefined;
        const send = (c: CredentialCase): Promise<Exchange | undefined> => request(ctx, op, c, cases.indexOf(c)).catch(() => undefined);
        const rejected = await send(first);
        const answers: (Exchange | undefined)[] = [];
        for (const c of derived) answers.push(await send(c));
        return anyTokenNote(rejected, answers);
      };
      for (const [index, c] of cases.entries()) {
        let note: string | undefined;
        await t.judge(
          c.name,
          async () => {
            // Said once per check: on the first token made from --token.
            if (c === derived[0]) note = await anyToken();
            return request(ctx, op, c, index);
          },
          (e) =>
            (level === 'spec' ? judgeNoAccessWithout(e) : judgeUnauthorized(e, credentials)).map((v) =>
              note === undefined ? v : { ...v, reason: `${v.reason}: ${note}` },
            ),
        );
      }
    },
  };
}

const CLASSES: CredentialClass[] = ['missing', 'non-bearer', 'rejected'];

/** The auth checks of every secured operation of the contract. */
export function authChecks(source: CheckSource): Check[] {
  return source.model.operations
    .filter((op) => op.secured)
    .map((op) => op.operationId)
    .flatMap((op) => [
      ...CLASSES.flatMap((credentials) => [check(source, op, credentials, 'spec'), check(source, op, credentials, 'strict')]),
      check(source, op, 'malformed', 'spec'),
    ]);
}
