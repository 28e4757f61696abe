/**
 * Authentication on every secured operation, as its security in the contract states: no 2xx without
 * accepted credentials (spec), 401 with a challenge of the operation's HTTP scheme (strict). Every way
 * credentials can be missing, presented under another scheme, malformed, rejected, put in the wrong
 * place or be those of a scheme the operation does not accept is a case of its class;
 * each class is sent both on a kept-alive connection right after an authenticated request and on
 * fresh connections (`afterAuthenticated`).
 */
import { is2xx } from '../judgments/answer.js';
import { bearerChallenge, judgeChallenged, judgeNoAccessWithout, type CredentialClass } from '../judgments/auth.js';
import type { OperationId, OperationModel } from '../contract/operations-model.js';
import { carrierText, schemesOf, securitySchemes, type OperationSecurity, type SecurityScheme } from '../contract/security.js';
import { basicCredentials, partsOf, unusable, valueOf, type CredentialParts, type CredentialValues } from './credentials.js';
import { keyOf, recordOf } from '../judgments/records.js';
import type { JsonObject } from '../contract/document.js';
import { PROFILE, SPEC } from '../judgments/rules.js';
import { securityPresented } from '../judgments/request.js';
import type { CheckModule, CheckSource, FaultCase, Observation, SuiteCheck, SuiteContext, SuiteExchange, SuiteRequest } from './define.js';
import type { JudgedExchange } from '../judgments/exchange.js';

/** The tokens the credential cases are made of (`--token`, `--rejected-token`). */
interface Tokens {
  token: string;
  rejectedToken: string;
}

/** An exchange as the suite recorded it, with the operation it addressed. */
type SentExchange = JudgedExchange & { request: { operation: string } };

const TITLES: Record<CredentialClass, string> = {
  missing: 'credentials missing',
  'non-bearer': 'the token under a scheme other than Bearer',
  rejected: 'a bearer token the server must not accept',
  malformed: 'a malformed bearer credential containing the token',
};

interface CredentialCase {
  name: string;
  /** The Authorization header, or undefined for none. */
  authorization: string | undefined;
}

/** The cases of each class (a pure function of the configured tokens). */
export function credentialCases(config: Tokens): Record<CredentialClass, CredentialCase[]> {
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

/**
 * The realm of goods-mock's Bearer challenge (`REALM` in mock/auth.ts: the suite reaches the mock only
 * through its public API; `auth.test.ts` runs the suite against the mock and keeps the two equal).
 */
export const MOCK_REALM = 'goods-mock';

/** The answer's Bearer challenge names goods-mock's realm: the server is this project's mock. */
export function isGoodsMock(exchange: JudgedExchange | undefined): boolean {
  const challenge = bearerChallenge(exchange?.answer?.headers['www-authenticate']);
  return challenge !== undefined && /\brealm\s*=\s*"([^"]*)"/i.exec(challenge)?.[1] === MOCK_REALM;
}

const accepted = (exchange: JudgedExchange | undefined): boolean => exchange?.answer !== undefined && is2xx(exchange.answer.status);
const refused = (exchange: JudgedExchange | undefined): boolean => exchange?.answer !== undefined && !is2xx(exchange.answer.status);

/**
 * The server accepts any token: `--rejected-token` was refused while every token made from `--token`
 * (a suffix, a prefix, another letter case) was accepted. What to say about it, with how to start
 * goods-mock with `--token` when the refusal names its realm; undefined otherwise.
 */
export function anyTokenNote(rejected: JudgedExchange | undefined, derived: readonly (JudgedExchange | undefined)[]): string | undefined {
  if (!refused(rejected) || derived.length === 0 || !derived.every(accepted)) return undefined;
  const note = `the server accepts any token: the --rejected-token was refused (${rejected?.answer?.status ?? ''}), but every token made from --token (with a suffix, a prefix, another letter case) was accepted`;
  return isGoodsMock(rejected)
    ? `${note}; this is goods-mock (WWW-Authenticate realm="${MOCK_REALM}"), which accepts any well-formed token unless started with --token: start it with \`npm start -- --token TOKEN\` (or \`npx goods-mock --token TOKEN\`), TOKEN being the token of this run`
    : note;
}

/** The note of `anyTokenNote` for a whole run's traffic (the first operation showing it), for the summary's hints. */
export function anyTokenHint(history: readonly SentExchange[], config: Tokens): string | undefined {
  const [rejected, ...derived] = credentialCases(config).rejected.map((c) => c.authorization);
  for (const operation of new Set(history.map((e) => e.request.operation))) {
    const mine = history.filter((e) => e.request.operation === operation);
    const sentWith = (authorization: string | undefined): SentExchange | undefined =>
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

/** A case of a credential class for one operation: what the request carries instead of its credentials. */
export interface AuthCase {
  name: string;
  parts: CredentialParts;
  /** A bearer credential the server must refuse (its 401 names `error="invalid_token"`). */
  bearerRefused?: boolean;
}

/** Every class a secured operation's cases fall in (its security decides which apply). */
export type AuthClass = CredentialClass | 'wrong-place' | 'other-scheme';

const AUTH_TITLES: Record<AuthClass, string> = {
  ...TITLES,
  'wrong-place': 'the API key in another place (header, query, cookie)',
  'other-scheme': 'a valid credential of a scheme the operation does not accept',
};

const none = (): CredentialParts => ({ headers: {}, query: [] });
const header = (authorization: string | undefined): CredentialParts => ({
  headers: authorization === undefined ? {} : { authorization },
  query: [],
});

/** Case-swapped, suffixed and cut copies of a credential: values a server must refuse that start like the real one. */
function nearMisses(value: string, rejected: string): { name: string; value: string }[] {
  const swapped = [...value].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
  return [
    { name: 'the --rejected-token', value: rejected },
    { name: 'with a suffix', value: `${value}x` },
    ...(value.length > 1 ? [{ name: 'a prefix', value: value.slice(0, -1) }] : []),
    ...(swapped !== value ? [{ name: 'in another letter case', value: swapped }] : []),
  ];
}

/**
 * The cases of each credential class for one operation, derived from its security: bearer-only
 * operations keep the classes of RFC 6750 (missing, another scheme, rejected, malformed); every scheme
 * gets its rejected credentials; API keys are also sent in the wrong place; a credential of a scheme
 * the contract declares but the operation does not accept must be refused too.
 */
export function authCases(
  security: OperationSecurity,
  declared: readonly SecurityScheme[],
  values: CredentialValues & { rejectedToken: string },
): Partial<Record<AuthClass, AuthCase[]>> {
  if (!security.secured) return {};
  const schemes = schemesOf(security);
  const bearerOnly =
    security.alternatives.length === 1 &&
    schemes.length === 1 &&
    schemes[0]?.carrier.kind === 'authorization' &&
    schemes[0].carrier.scheme === 'bearer';
  const out: Partial<Record<AuthClass, AuthCase[]>> = {};
  if (bearerOnly) {
    const classic = credentialCases({ token: valueOf(schemes[0] as SecurityScheme, values), rejectedToken: values.rejectedToken });
    out.missing = classic.missing.map((c) => ({ name: c.name, parts: header(c.authorization) }));
    out['non-bearer'] = classic['non-bearer'].map((c) => ({ name: c.name, parts: header(c.authorization) }));
    out.rejected = classic.rejected.map((c) => ({ name: c.name, parts: header(c.authorization), bearerRefused: true }));
    out.malformed = classic.malformed.map((c) => ({ name: c.name, parts: header(c.authorization) }));
  } else {
    out.missing = [{ name: 'no credentials at all', parts: none() }];
    if (schemes.some((s) => s.carrier.kind === 'authorization'))
      out.missing.push({ name: 'an empty Authorization header', parts: header('') });
    // Rejected: per alternative, each scheme's near misses with the alternative's other schemes valid.
    const rejected: AuthCase[] = [];
    for (const alternative of security.alternatives) {
      if (alternative.some((s) => unusable(s, valueOf(s, values)) !== undefined)) continue;
      for (const scheme of alternative) {
        const own = valueOf(scheme, values);
        const misses =
          scheme.carrier.kind === 'authorization' && scheme.carrier.scheme === 'basic'
            ? nearMisses(own.slice(own.indexOf(':') + 1), values.rejectedToken).map((m) => ({
                name: `${m.name} as the password`,
                value: `${own.slice(0, own.indexOf(':'))}:${m.value}`,
              }))
            : nearMisses(own, values.rejectedToken);
        for (const miss of misses) {
          const parts = none();
          for (const other of alternative) partsOf(other, other === scheme ? miss.value : valueOf(other, values), parts);
          rejected.push({
            name: `${scheme.name}: ${miss.name}`,
            parts,
            bearerRefused: scheme.carrier.kind === 'authorization' && scheme.carrier.scheme === 'bearer',
          });
        }
      }
    }
    if (rejected.length > 0) out.rejected = rejected;
    // Wrong place: an API key elsewhere (its value right), the alternative's other schemes valid.
    const misplaced: AuthCase[] = [];
    for (const alternative of security.alternatives)
      for (const scheme of alternative) {
        const carrier = scheme.carrier;
        if (carrier.kind !== 'apiKey' || unusable(scheme, valueOf(scheme, values)) !== undefined) continue;
        const places = (['header', 'query', 'cookie'] as const).filter((place) => place !== carrier.in);
        for (const place of places) {
          if (
            schemes.some(
              (s) => s.carrier.kind === 'apiKey' && s.carrier.in === place && s.carrier.name.toLowerCase() === carrier.name.toLowerCase(),
            )
          )
            continue;
          const parts = none();
          for (const other of alternative) if (other !== scheme) partsOf(other, valueOf(other, values), parts);
          partsOf(
            { ...scheme, carrier: { ...carrier, in: place, name: place === 'header' ? carrier.name.toLowerCase() : carrier.name } },
            valueOf(scheme, values),
            parts,
          );
          misplaced.push({ name: `${scheme.name}: the key in the ${place} ${carrier.name} instead of the ${carrier.in}`, parts });
        }
      }
    if (misplaced.length > 0) out['wrong-place'] = misplaced;
  }
  // Another scheme of the contract, valid in itself, that no alternative of the operation accepts.
  const accepted = new Set(schemes.map((s) => s.name));
  const carriesLike = (a: SecurityScheme, b: SecurityScheme): boolean => JSON.stringify(a.carrier) === JSON.stringify(b.carrier);
  const others = declared.filter(
    (s) => !accepted.has(s.name) && !schemes.some((mine) => carriesLike(mine, s)) && unusable(s, valueOf(s, values)) === undefined,
  );
  if (others.length > 0)
    out['other-scheme'] = others.map((s) => ({
      name: `a credential of ${s.name} (${carrierText(s.carrier)})`,
      parts: partsOf(s, valueOf(s, values)),
    }));
  return out;
}

/**
 * The record the credential cases of an operation on one record act on, so that a server letting a request
 * through without valid credentials answers 2xx rather than a 404 for a key no record has: a record of the
 * create's corpus (created with valid credentials, once, whichever check asks first), another one for each
 * operation of the resource (a delete let through never takes the record of another operation's cases), one
 * with what an action requires. Undefined when there is none (--read-only, no create, a create refused):
 * the cases then name a placeholder key.
 */
async function recordFor<X extends SuiteExchange>(
  ctx: SuiteContext<X>,
  op: OperationModel,
): Promise<{ key: string; record: JsonObject } | undefined> {
  const resource = op.keyParam !== undefined && op.resource !== undefined ? ctx.model.resource(op.resource) : undefined;
  const producer = resource?.fixtures === false ? resource.producers[0] : undefined;
  if (resource === undefined || producer === undefined) return undefined;
  try {
    const members = ctx.model.get(producer).members;
    const requires = Object.entries(op.action?.requires ?? {});
    const fits = (body: JsonObject): boolean =>
      requires.every(
        ([name, value]) => JSON.stringify(body[name] ?? members.find((m) => m.name === name)?.default ?? null) === JSON.stringify(value),
      );
    const corpus = await ctx.corpus(producer);
    const indexes = corpus.flatMap((c, i) => (fits(c.body) ? [i] : []));
    const keyed = ctx.model.operations.filter((o) => o.resource === resource.name && o.keyParam !== undefined);
    const index = indexes[Math.max(0, keyed.indexOf(op)) % Math.max(1, indexes.length)];
    if (index === undefined) return undefined;
    const record = recordOf((await ctx.corpusCreate(producer, index)).exchange);
    const key = keyOf(resource, record);
    return record !== undefined && key !== undefined ? { key, record } : undefined;
  } catch {
    // --read-only, the budget spent, a create not sent: the placeholder key.
    return undefined;
  }
}

/** One request per (operation, case), shared by the spec and the strict check: the operation with the case's credentials instead of its own. */
function request<X extends SuiteExchange>(ctx: SuiteContext<X>, op: OperationId, credentials: AuthCase, index: number): Promise<X> {
  return ctx.memo(`auth/${op}/${credentials.name}`, async () => {
    const model = ctx.model.get(op);
    let sent: SuiteRequest;
    if (op === ctx.model.orderInfo?.operationId && credentials.parts.query.length === 0)
      sent = ctx.orderRequest(ctx.config.orderNumber, credentials.parts.headers);
    else {
      const target = await recordFor(ctx, model);
      const body = ctx.model.isCreate(op)
        ? ((await ctx.corpus(op))[0]?.body ?? {})
        : model.requestRef !== undefined
          ? await ctx.exampleBody(op, target?.record)
          : undefined;
      // Path parameters: the record's key, else a plausible value of their type (credentials are judged before anything else).
      const params = Object.fromEntries(
        model.params
          .filter((p) => p.in === 'path')
          .map((p) => [
            p.name,
            p.name === model.keyParam && target !== undefined
              ? target.key
              : p.type === 'integer' || p.type === 'number'
                ? '1'
                : ctx.config.orderNumber,
          ]),
      );
      sent = ctx.buildRequest(op, {
        params,
        credentials: credentials.parts,
        ...(body !== undefined ? { body } : {}),
        write: model.method !== 'GET' && model.method !== 'HEAD',
      });
    }
    return afterAuthenticated(index) ? ctx.afterAuthenticated(sent) : ctx.fresh(sent);
  });
}

function check(
  source: CheckSource,
  op: OperationModel,
  credentials: AuthClass,
  level: 'spec' | 'strict',
  documented: readonly AuthCase[],
): SuiteCheck {
  const http = schemesOf(op.security).flatMap((s) => (s.carrier.kind === 'authorization' ? [s.carrier.scheme] : []));
  const challenge =
    http.length === 0 ? '' : ` with WWW-Authenticate: ${http.map((s) => `${s.charAt(0).toUpperCase()}${s.slice(1)}`).join(' or ')}`;
  return {
    id: level === 'spec' ? `${op.operationId}.auth-${credentials}-no-2xx` : `${op.operationId}.auth-${credentials}-401`,
    level,
    operations: [op.operationId],
    title:
      level === 'spec'
        ? `${AUTH_TITLES[credentials]}: no 2xx answer`
        : `${AUTH_TITLES[credentials]}: 401${challenge}${credentials === 'rejected' && http.includes('bearer') ? ' error="invalid_token"' : ''}`,
    rule: level === 'spec' ? SPEC.auth : PROFILE.unauthorized,
    write: op.method !== 'GET' && op.method !== 'HEAD',
    cases: documented.map((c) => c.name),
    async run(ctx, t) {
      const cases =
        authCases(op.security, [...securitySchemes(ctx.judge.contracts.strict.document).values()], {
          token: ctx.config.token,
          byScheme: ctx.config.credentials,
          rejectedToken: ctx.config.rejectedToken,
        })[credentials] ?? [];
      const [first, ...derived] = cases;
      // For the rejected class: the --rejected-token refused while every token made from --token is accepted means
      // any token is (the requests are memoized: each is sent once, and shared with the other level's check).
      const anyToken = async (): Promise<string | undefined> => {
        if (credentials !== 'rejected' || first === undefined) return undefined;
        const send = (c: AuthCase): Promise<JudgedExchange | undefined> =>
          request(ctx, op.operationId, c, cases.indexOf(c)).catch(() => undefined);
        const rejected = await send(first);
        const answers: (JudgedExchange | undefined)[] = [];
        for (const c of derived) answers.push(await send(c));
        return anyTokenNote(rejected, answers);
      };
      for (const [index, c] of cases.entries()) {
        const at = index;
        let note: string | undefined;
        await t.judge(
          c.name,
          async () => {
            // Said once per check: on the first token made from --token.
            if (c === derived[0]) note = await anyToken();
            return request(ctx, op.operationId, c, at);
          },
          (e) =>
            (level === 'spec' ? judgeNoAccessWithout(e) : judgeChallenged(e, http, c.bearerRefused === true)).map((v) =>
              note === undefined ? v : { ...v, reason: `${v.reason}: ${note}` },
            ),
        );
      }
    },
  };
}

// ---- what the proxy applies to traffic it observes ----

const noTwoXxWithoutBearer: Observation = {
  id: 'answer.auth-no-2xx',
  level: 'spec',
  side: 'server',
  rule: SPEC.auth,
  judge(input) {
    if (!input.op) return [];
    // A well-formed credential the proxy cannot tell accepted from rejected; a malformed one a server may read leniently.
    const presented = securityPresented(input.exchange.request, input.jc.model.get(input.op).security);
    return presented.kind === 'nothing' ? judgeNoAccessWithout(input.exchange) : [];
  },
};

const authStatus: Observation = {
  id: 'answer.auth-401',
  level: 'strict',
  side: 'server',
  rule: PROFILE.unauthorized,
  judge(input) {
    const answer = input.exchange.answer;
    if (!input.op || !answer) return [];
    const { security } = input.jc.model.get(input.op);
    if (!security.secured) return [];
    const http = [...new Set(schemesOf(security).flatMap((s) => (s.carrier.kind === 'authorization' ? [s.carrier.scheme] : [])))];
    const presented = securityPresented(input.exchange.request, security);
    if (presented.kind === 'nothing') return is2xx(answer.status) ? [] : judgeChallenged(input.exchange, http, false); // a 2xx is answer.auth-no-2xx
    // A well-formed credential answered 401 was rejected; a malformed one may be answered 400 (RFC 6750), or 401 with a challenge.
    if (answer.status !== 401) return [];
    return judgeChallenged(input.exchange, http, presented.kind === 'well-formed' && presented.bearer);
  },
};

/** The auth checks of every secured operation of the contract: each class its security gives cases, at both levels (malformed bearer credentials at spec only). */
function authChecks(source: CheckSource): SuiteCheck[] {
  const declared = [...securitySchemes(source.contracts.strict.document).values()];
  const placeholder = { token: 'Ab1', byScheme: {}, rejectedToken: 'invalid' };
  return source.model.operations
    .filter((op) => op.secured)
    .flatMap((op) => {
      const classes = authCases(op.security, declared, placeholder);
      return (['missing', 'non-bearer', 'rejected', 'wrong-place', 'other-scheme', 'malformed'] as const).flatMap((credentials) => {
        const documented = classes[credentials];
        if (documented === undefined || documented.length === 0) return [];
        return credentials === 'malformed'
          ? [check(source, op, credentials, 'spec', documented)]
          : [check(source, op, credentials, 'spec', documented), check(source, op, credentials, 'strict', documented)];
      });
    });
}

const BEARER_CLASSES = ['missing', 'non-bearer', 'rejected'] as const;

/**
 * The faults of the reference server that make each auth check fail, for the operations that have the
 * check: a class accepted (spec) or answered 403 (strict); a rejected token's 401 without
 * `error="invalid_token"`; partition classes of credentials (the token under another scheme, as a Basic
 * password, a token starting like the real one, the first word of a malformed credential); a kept-alive
 * connection that carried one authenticated request then serving one with no credentials; a 401 without
 * a challenge.
 */
function authFaults(source: CheckSource): FaultCase[] {
  const ids = new Set(authChecks(source).map((c) => c.id));
  const rows = source.model.operations.flatMap(({ operationId: op }): FaultCase[] => [
    ...BEARER_CLASSES.flatMap((variant) => [
      { check: `${op}.auth-${variant}-no-2xx`, faults: [`auth-accepts-${variant}:${op}`] },
      { check: `${op}.auth-${variant}-401`, faults: [`auth-403-${variant}:${op}`] },
    ]),
    { check: `${op}.auth-rejected-401`, faults: [`auth-no-invalid-token:${op}`] },
    { check: `${op}.auth-non-bearer-no-2xx`, faults: [`token-any-scheme:${op}`] },
    { check: `${op}.auth-non-bearer-no-2xx`, faults: [`basic-password-accepted:${op}`] },
    { check: `${op}.auth-rejected-no-2xx`, faults: [`token-prefix-match:${op}`] },
    { check: `${op}.auth-malformed-no-2xx`, faults: [`token-first-word:${op}`] },
    { check: `${op}.auth-missing-no-2xx`, faults: [`auth-per-connection:${op}`] },
    {
      check: `${op}.auth-missing-401`,
      faults: [`auth-no-challenge:${op}`],
      alsoFails: [`${op}.auth-non-bearer-401`, `${op}.auth-rejected-401`],
    },
  ]);
  return rows.filter((r) => ids.has(r.check));
}

/**
 * The auth checks as one module: the checks of each secured operation, class by class (their cases
 * are shared by the spec and the strict check of a class), with their faults, and what the proxy
 * applies of them to traffic it observes (no 2xx without credentials; the 401 and its challenge).
 */
export const authModule: CheckModule = {
  suite: authChecks,
  faultCases: authFaults,
  overrides: {},
  observe: [noTwoXxWithoutBearer, authStatus],
};
