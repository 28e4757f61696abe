/**
 * Hostile requests at the HTTP level: every method on every path, malformed Authorization headers,
 * odd content types, invalid percent-encoding, very long order numbers and URLs, bodies over the
 * limit, bodies that stop mid-way, odd session and Prefer headers.
 */
import { isB64Token } from '../../../util/bearer.js';
import { post, validBody, type CaseDraft } from './corpus-bodies.js';
import { CREATE_PATHS, HEADER_LIMIT, ONE_MIB, ORDER_PATH, type CorpusTarget, type Expectation, type Resource } from './corpus-types.js';
import { requestBytes, type HeaderList } from './http-bytes.js';
import type { Rng } from './rng.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'CONNECT', 'PROPFIND', 'FOO'] as const;
type Method = (typeof METHODS)[number];

/** The statuses the contract (and the /__mock documentation) prescribe for a method on a path. */
interface PathRow {
  path: string;
  /** Allowed methods with their status (with a valid token, and without one). */
  allowed: Partial<Record<Method, [withToken: number, withoutToken: number]>>;
  /** Status of any other method: 405 on a known path, 404 on an unknown one. */
  other: number;
  creates?: Resource;
}

function pathRows(target: CorpusTarget): PathRow[] {
  const order = `${ORDER_PATH}${encodeURIComponent(target.orderNumbers[0] ?? 'x')}`;
  const listing = { GET: [200, 200], HEAD: [200, 200], OPTIONS: [204, 204] } as PathRow['allowed'];
  return [
    { path: order, allowed: { GET: [200, 401], HEAD: [200, 401], OPTIONS: [204, 204] }, other: 405 },
    { path: CREATE_PATHS['lot-transfers'], allowed: { POST: [201, 401], OPTIONS: [204, 204] }, other: 405, creates: 'lot-transfers' },
    { path: CREATE_PATHS['test-samples'], allowed: { POST: [201, 401], OPTIONS: [204, 204] }, other: 405, creates: 'test-samples' },
    { path: '/__mock/health', allowed: listing, other: 405 },
    { path: '/__mock/orders', allowed: listing, other: 405 },
    { path: '/__mock/lot-transfers', allowed: listing, other: 405 },
    { path: '/__mock/test-samples', allowed: listing, other: 405 },
    // The corpus mock runs with --admin-token: a user token is not the admin token.
    { path: '/__mock/reset', allowed: { POST: [401, 401], OPTIONS: [204, 204] }, other: 405 },
    { path: '/__mock/', allowed: { GET: [200, 200], HEAD: [200, 200], OPTIONS: [204, 204] }, other: 405 },
    { path: '/__mock/openapi.json', allowed: { GET: [200, 200], HEAD: [200, 200], OPTIONS: [204, 204] }, other: 405 },
    { path: '/__mock/nothing', allowed: {}, other: 404 },
    { path: '/__mock/__proto__', allowed: {}, other: 404 },
    { path: '/nothing/here', allowed: {}, other: 404 },
    { path: '/', allowed: {}, other: 404 },
    { path: '/goodsReception/rest/v1/lot-transfers', allowed: {}, other: 404 },
  ];
}

/** Every method on every path, with and without a token (with a valid JSON body for the body methods). */
export function methodMatrix(rng: Rng, target: CorpusTarget): CaseDraft[] {
  const drafts: CaseDraft[] = [];
  for (const row of pathRows(target)) {
    for (const method of METHODS) {
      for (const withToken of [true, false]) {
        const headers: HeaderList = withToken ? [['Authorization', `Bearer ${target.token}`]] : [];
        const hasBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
        const resource = row.creates ?? 'test-samples';
        if (hasBody) headers.push(['Content-Type', 'application/json']);
        const body = hasBody ? JSON.stringify(validBody(rng, target, resource)) : undefined;
        let expect: Expectation;
        const allowed = row.allowed[method];
        if (method === 'FOO') expect = { statuses: [400], why: 'not an HTTP method Node parses' };
        else if (method === 'CONNECT') expect = { statuses: [400], why: 'the mock is not a proxy (no authority-form targets)' };
        else if (allowed) {
          const status = withToken ? allowed[0] : allowed[1];
          expect = { statuses: [status], why: `${method} is allowed on ${row.path}` };
          if (status === 201 && row.creates) expect.creates = row.creates;
        } else if (method === 'OPTIONS') expect = { statuses: [row.other === 405 ? 204 : 404], why: 'OPTIONS lists Allow' };
        else expect = { statuses: [row.other], why: row.other === 405 ? `${method} is not allowed here` : 'no such path' };
        drafts.push({
          category: 'methods x paths',
          label: `${method} ${row.path} ${withToken ? 'with' : 'without'} token`,
          data: requestBytes({ method, target: row.path, headers, ...(body !== undefined ? { body } : {}) }),
          expect,
        });
      }
    }
  }
  return drafts;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/';

/** Authorization header values and whether RFC 6750 (`Bearer 1*SP b64token`) accepts them. */
export function authorizationValues(
  target: CorpusTarget,
): [label: string, value: Buffer | undefined, ok: boolean | 'too-large' | 'bad-http'][] {
  const t = target.token;
  const v = (s: string) => Buffer.from(s, 'latin1');
  return [
    ['no Authorization', undefined, false],
    ['"Bearer"', v('Bearer'), false],
    ['"Bearer " (trailing space, trimmed by HTTP)', v('Bearer '), false],
    ['"Bearer  x" (two spaces: 1*SP)', v(`Bearer  ${t}`), true],
    ['"bearer x" (scheme is case-insensitive)', v(`bearer ${t}`), true],
    ['"BEARER x"', v(`BEARER ${t}`), true],
    ['"Bearer x y"', v(`Bearer ${t} y`), false],
    ['"Bearer<TAB>x"', v(`Bearer\t${t}`), false],
    ['"Bearer x,"', v(`Bearer ${t},`), false],
    ['"Bearer \\"x\\""', v(`Bearer "${t}"`), false],
    ['"Bearer x=="', v(`Bearer ${t}==`), true],
    ['"Bearer ="', v('Bearer ='), false],
    ['"Bearer x=y"', v(`Bearer ${t}=y`), false],
    ['"Bearer invalid" (the default rejected token)', v('Bearer invalid'), false],
    ['non-ASCII token (UTF-8)', Buffer.from(`Bearer t\u00f6k\u00e9n\u20ac`, 'utf8'), false],
    ['non-ASCII token (Latin-1 byte)', v('Bearer t\u00e9'), false],
    ['10,000-character token', v(`Bearer ${'a'.repeat(10_000)}`), true],
    ['20,000-character token (over the header limit)', v(`Bearer ${'a'.repeat(20_000)}`), 'too-large'],
    ['"Basic dXNlcjpwYXNz"', v('Basic dXNlcjpwYXNz'), false],
    ['"Bearerx"', v(`Bearer${t}`), false],
    ['"Token x"', v(`Token ${t}`), false],
    ['empty value', v(''), false],
    ['leading space (trimmed by HTTP)', v(` Bearer ${t}`), true],
    ['control character in the token', v(`Bearer ${t}\u0001`), 'bad-http'],
    ['NUL in the token', v(`Bearer ${t}\u0000x`), 'bad-http'],
  ];
}

export function authorizationCases(rng: Rng, target: CorpusTarget): CaseDraft[] {
  const drafts: CaseDraft[] = [];
  for (const [label, value, ok] of authorizationValues(target)) {
    for (const where of ['order', 'create'] as const) {
      const resource = rng.pick<Resource>(['lot-transfers', 'test-samples']);
      const headers: HeaderList = value === undefined ? [] : [['Authorization', value]];
      const good = where === 'order' ? 200 : 201;
      const expect: Expectation =
        ok === true
          ? { statuses: [good], why: 'a valid bearer token', ...(where === 'create' ? { creates: resource } : {}) }
          : ok === 'too-large'
            ? { statuses: [431], why: 'headers over the 16 KiB limit' }
            : ok === 'bad-http'
              ? { statuses: [400], why: 'a control character is not allowed in a header value' }
              : { statuses: [401], why: 'not an accepted bearer token' };
      const data =
        where === 'order'
          ? requestBytes({ method: 'GET', target: `${ORDER_PATH}${encodeURIComponent(target.orderNumbers[0] ?? 'x')}`, headers })
          : requestBytes({
              method: 'POST',
              target: CREATE_PATHS[resource],
              headers: [...headers, ['Content-Type', 'application/json']],
              body: JSON.stringify(validBody(rng, target, resource)),
            });
      drafts.push({ category: 'authorization', label: `${where}: ${label}`, data, expect });
    }
  }
  // Node keeps the first of duplicate Authorization headers.
  const order = `${ORDER_PATH}${encodeURIComponent(target.orderNumbers[0] ?? 'x')}`;
  drafts.push({
    category: 'authorization',
    label: 'two Authorization headers, Bearer first',
    data: requestBytes({
      method: 'GET',
      target: order,
      headers: [
        ['Authorization', `Bearer ${target.token}`],
        ['Authorization', 'Basic eA=='],
      ],
    }),
    expect: { statuses: [200], why: 'the first Authorization header counts' },
  });
  drafts.push({
    category: 'authorization',
    label: 'two Authorization headers, Basic first',
    data: requestBytes({
      method: 'GET',
      target: order,
      headers: [
        ['Authorization', 'Basic eA=='],
        ['Authorization', `Bearer ${target.token}`],
      ],
    }),
    expect: { statuses: [401], why: 'the first Authorization header counts' },
  });
  return drafts;
}

/** A random token: a valid b64token (accepted) or one with a character outside it (401). */
export function randomAuthorization(rng: Rng, target: CorpusTarget): CaseDraft {
  const alphabet = rng.next() < 0.5 ? B64 : `${B64} ,;:"'\\()[]{}<>@!#$%&*?^\`|=`;
  const token = rng.text(rng.int(1, 64), alphabet);
  const ok = isB64Token(token) && token !== 'invalid';
  return {
    category: 'authorization',
    label: `random token ${JSON.stringify(token)}`,
    data: requestBytes({
      method: 'GET',
      target: `${ORDER_PATH}${encodeURIComponent(target.orderNumbers[0] ?? 'x')}`,
      headers: [['Authorization', `Bearer ${token}`]],
    }),
    expect: ok ? { statuses: [200], why: 'a b64token' } : { statuses: [401], why: 'not a b64token' },
  };
}

const CONTENT_TYPES: [string | undefined, boolean, string][] = [
  [undefined, false, 'no Content-Type'],
  ['application/json', true, 'the contract media type'],
  ['application/json; charset=utf-8', true, 'the UTF-8 charset parameter is allowed'],
  ['application/json;charset=UTF-8', true, 'charset values are case-insensitive'],
  ['application/json; charset="utf-8"', true, 'a quoted charset value'],
  ['APPLICATION/JSON', true, 'media types are case-insensitive'],
  ['application/json; charset=latin1', false, 'JSON is UTF-8 only'],
  ['application/json; charset=iso-8859-1', false, 'JSON is UTF-8 only'],
  ['application/json; charset=utf-16', false, 'JSON is UTF-8 only'],
  ['application/jsonx', false, 'another media type'],
  ['text/json', false, 'another media type'],
  ['text/plain', false, 'another media type'],
  ['multipart/form-data; boundary=xyz', false, 'another media type'],
  ['application/x-www-form-urlencoded', false, 'another media type'],
  ['application/problem+json', false, 'another media type'],
  ['application/merge-patch+json', false, 'another media type'],
  ['*/*', false, 'a range, not a media type'],
  ['application/*', false, 'a range, not a media type'],
  ['application/json, text/plain', false, 'a list is not a media type'],
  ['', false, 'empty Content-Type'],
  ['json', false, 'not a media type'],
  ['application/json; charset', false, 'a parameter without a value'],
  ['application/json; charset=utf-8; charset=latin1', false, 'a duplicate parameter'],
];

export function contentTypeCases(rng: Rng, target: CorpusTarget): CaseDraft[] {
  const drafts: CaseDraft[] = [];
  for (const [type, ok, why] of CONTENT_TYPES) {
    const resource = rng.pick<Resource>(['lot-transfers', 'test-samples']);
    const headers: HeaderList = [['Authorization', `Bearer ${target.token}`]];
    if (type !== undefined) headers.push(['Content-Type', type]);
    const body =
      type?.startsWith('multipart') === true
        ? '--xyz\r\nContent-Disposition: form-data; name="fk_lot_id"\r\n\r\n1\r\n--xyz--\r\n'
        : JSON.stringify(validBody(rng, target, resource));
    drafts.push({
      category: 'content types',
      label: `Content-Type: ${type ?? '(none)'}`,
      data: requestBytes({ method: 'POST', target: CREATE_PATHS[resource], headers, body }),
      expect: ok ? { statuses: [201], why, creates: resource } : { statuses: [415], why },
    });
  }
  const resource = 'test-samples';
  drafts.push({
    category: 'content types',
    label: 'Content-Type with UTF-8 bytes',
    data: requestBytes({
      method: 'POST',
      target: CREATE_PATHS[resource],
      headers: [
        ['Authorization', `Bearer ${target.token}`],
        ['Content-Type', Buffer.from('application/jsön', 'utf8')],
      ],
      body: JSON.stringify(validBody(rng, target, resource)),
    }),
    expect: { statuses: [415], why: 'another media type' },
  });
  return drafts;
}

/** A request as two parts: the head (through the blank line) and the body. */
function splitHead(request: Buffer): Buffer[] {
  const end = request.indexOf('\r\n\r\n') + 4;
  return [request.subarray(0, end), request.subarray(end)];
}

/** Bodies over the 1 MiB limit, declared or streamed, sent in 64 KiB parts. */
export function bigBodyCases(rng: Rng, target: CorpusTarget): CaseDraft[] {
  const head = (resource: Resource, extra: HeaderList, length: number | null) =>
    requestBytes({
      method: 'POST',
      target: CREATE_PATHS[resource],
      headers: [['Authorization', `Bearer ${target.token}`], ['Content-Type', 'application/json'], ...extra],
      contentLength: length,
    });
  const parts = (size: number) => {
    const filler = `{"notes":"${'x'.repeat(size)}`;
    const out: Buffer[] = [];
    for (let i = 0; i < size; i += 65536) out.push(Buffer.from(filler.slice(i, i + 65536)));
    return out;
  };
  const chunked = (size: number) =>
    parts(size).map((p) => Buffer.concat([Buffer.from(`${p.length.toString(16)}\r\n`), p, Buffer.from('\r\n')]));
  const tooLarge: Expectation = { statuses: [413], why: 'over the 1 MiB body limit' };
  const lot = rng.pick(target.lotIds);
  return [
    {
      category: 'big bodies',
      label: '2 MiB body, declared',
      data: [head('test-samples', [], 2 * ONE_MIB), ...parts(2 * ONE_MIB)],
      stopOnAnswer: true,
      waitForEarlyAnswerMs: 5000,
      expect: tooLarge,
    },
    {
      category: 'big bodies',
      label: '2 MiB body, chunked',
      data: [head('lot-transfers', [['Transfer-Encoding', 'chunked']], null), ...chunked(2 * ONE_MIB), Buffer.from('0\r\n\r\n')],
      stopOnAnswer: true,
      expect: tooLarge,
    },
    {
      category: 'big bodies',
      label: '1 MiB + 1 byte, declared',
      data: [head('test-samples', [], ONE_MIB + 1), ...parts(ONE_MIB + 1)],
      stopOnAnswer: true,
      waitForEarlyAnswerMs: 5000,
      expect: tooLarge,
    },
    {
      category: 'big bodies',
      label: 'declared 1 GiB, nothing sent',
      data: [head('test-samples', [], 1024 * ONE_MIB)],
      stopOnAnswer: true,
      expect: tooLarge,
    },
    {
      category: 'big bodies',
      label: '1 MiB + 1 byte of valid JSON',
      data: splitHead(
        post(
          target,
          'test-samples',
          `{"fk_lot_id":${lot},"fk_user_id":1,"notes":"${'y'.repeat(ONE_MIB + 1 - 40 - String(lot).length)}"}`.padEnd(ONE_MIB + 1, ' '),
        ),
      ),
      stopOnAnswer: true,
      waitForEarlyAnswerMs: 5000,
      expect: tooLarge,
    },
  ];
}

/** A body that stops mid-way: Content-Length larger than what is sent, then the socket is ended or destroyed. */
export function truncatedBody(rng: Rng, target: CorpusTarget): CaseDraft {
  const resource = rng.pick<Resource>(['lot-transfers', 'test-samples']);
  const body = Buffer.from(JSON.stringify(validBody(rng, target, resource)));
  const sent = rng.int(0, body.length - 1);
  const chunked = rng.next() < 0.25;
  const after = rng.pick(['end', 'destroy'] as const);
  const data = chunked
    ? Buffer.concat([
        requestBytes({
          method: 'POST',
          target: CREATE_PATHS[resource],
          headers: [
            ['Authorization', `Bearer ${target.token}`],
            ['Content-Type', 'application/json'],
            ['Transfer-Encoding', 'chunked'],
          ],
          contentLength: null,
        }),
        Buffer.from(`${body.length.toString(16)}\r\n`),
        body.subarray(0, sent),
      ])
    : requestBytes({
        method: 'POST',
        target: CREATE_PATHS[resource],
        headers: [
          ['Authorization', `Bearer ${target.token}`],
          ['Content-Type', 'application/json'],
        ],
        body: body.subarray(0, sent),
        contentLength: body.length,
      });
  return {
    category: 'body stops mid-way',
    label: `${chunked ? 'chunked' : 'Content-Length'} body, ${sent} of ${body.length} bytes sent, then ${after}`,
    data,
    after,
    expect: { statuses: [400], why: 'an incomplete request', answerOptional: after === 'destroy' },
  };
}

export function percentCases(target: CorpusTarget): CaseDraft[] {
  const auth: HeaderList = [['Authorization', `Bearer ${target.token}`]];
  const known = new Set(target.orderNumbers);
  const rows: [string, string][] = [
    ['%E0%A4%A', 'a truncated UTF-8 sequence'],
    ['%ZZ', 'not hex'],
    ['%', 'a lone percent'],
    ['%0', 'one hex digit'],
    ['%00', 'NUL'],
    ['%2F', 'an encoded slash'],
    ['%C0%AF', 'an overlong slash'],
    ['%ED%A0%80', 'an encoded surrogate'],
    ['%FF', 'not UTF-8'],
    ['..%2F..%2Fetc%2Fpasswd', 'encoded traversal'],
    ['%2e%2e', 'encoded dot-dot'],
    [`${encodeURIComponent(target.orderNumbers[0] ?? 'x')}%00`, 'a known number with NUL'],
    [`${encodeURIComponent(target.orderNumbers[0] ?? 'x')}%20`, 'a known number with a trailing space'],
    ['__proto__', 'a prototype name'],
    ['constructor', 'a prototype name'],
    ['hasOwnProperty', 'a prototype name'],
    ['toString', 'a prototype name'],
    ['%F0%9F%98%80%E2%80%AE', 'emoji and RTL override'],
  ];
  const drafts: CaseDraft[] = rows.map(([raw, why]) => {
    let decoded: string | undefined;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      decoded = undefined;
    }
    const status = decoded !== undefined && known.has(decoded) ? 200 : 404;
    return {
      category: 'percent-encoding',
      label: `order number ${raw}`,
      data: requestBytes({ method: 'GET', target: `${ORDER_PATH}${raw}`, headers: auth }),
      expect: { statuses: [status], why: status === 200 ? 'decodes to a fixture number' : `${why}: no such order` },
    };
  });
  // Every character of a known number percent-encoded still names that order.
  const first = target.orderNumbers[0] ?? 'x';
  const encoded = [...Buffer.from(first, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  drafts.push({
    category: 'percent-encoding',
    label: `order number fully percent-encoded (${encoded.slice(0, 24)}...)`,
    data: requestBytes({ method: 'GET', target: `${ORDER_PATH}${encoded}`, headers: auth }),
    expect: { statuses: [200], why: 'decodes to a fixture number' },
  });
  drafts.push({
    category: 'percent-encoding',
    label: 'create path with invalid percent-encoding',
    data: requestBytes({
      method: 'POST',
      target: `${CREATE_PATHS['test-samples']}%ZZ`,
      headers: [...auth, ['Content-Type', 'application/json']],
      body: '{}',
    }),
    expect: { statuses: [404], why: 'no such path' },
  });
  return drafts;
}

export function longNumberCases(rng: Rng, target: CorpusTarget): CaseDraft[] {
  const auth: HeaderList = [['Authorization', `Bearer ${target.token}`]];
  const drafts: CaseDraft[] = [];
  for (const length of [1_000, 5_000, 10_000, 15_000, HEADER_LIMIT + 1000, 64 * 1024, ONE_MIB]) {
    const number = rng.text(length, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-');
    const fits = length <= 15_000;
    const request = requestBytes({ method: 'GET', target: `${ORDER_PATH}${number}`, headers: auth });
    const data: Buffer[] = [];
    for (let i = 0; i < request.length; i += 65536) data.push(request.subarray(i, i + 65536));
    drafts.push({
      category: 'long order numbers',
      label: `order number of ${length} characters`,
      data,
      stopOnAnswer: true,
      expect: fits
        ? { statuses: [404], why: 'no such order' }
        : {
            statuses: [431],
            why: 'request line over the 16 KiB header limit',
            // Node answers 431 and closes while a client may still be sending a huge request line (no
            // lingering close), so the client can see a reset instead of the answer: "431 or closed".
            answerOptional: request.length > 64 * 1024,
          },
    });
  }
  return drafts;
}

export function randomOrderNumber(rng: Rng, target: CorpusTarget): CaseDraft {
  const raw = rng.text(rng.int(1, 40), 'ORD-2026-0123456789 WE%/?#.\u00e9\u202e\ud83d\ude00');
  const known = new Set(target.orderNumbers);
  const encoded = encodeURIComponent(raw.replace(/[\ud800-\udfff]/g, 'x'));
  const decoded = decodeURIComponent(encoded);
  return {
    category: 'percent-encoding',
    label: `random order number ${JSON.stringify(decoded)}`,
    data: requestBytes({ method: 'GET', target: `${ORDER_PATH}${encoded}`, headers: [['Authorization', `Bearer ${target.token}`]] }),
    expect: known.has(decoded) ? { statuses: [200], why: 'a fixture number' } : { statuses: [404], why: 'no such order' },
  };
}

export function headerCases(rng: Rng, target: CorpusTarget): CaseDraft[] {
  const drafts: CaseDraft[] = [];
  const auth: [string, string] = ['Authorization', `Bearer ${target.token}`];
  for (const [session, label] of [
    ['', 'empty'],
    ['a b', 'a space'],
    ['x'.repeat(65), '65 characters'],
    ['../../etc', 'a path'],
    [Buffer.from('s\u00e9ssion', 'utf8'), 'UTF-8 bytes'],
    ['a,b', 'a list'],
  ] as [string | Buffer, string][]) {
    const resource = rng.pick<Resource>(['lot-transfers', 'test-samples']);
    drafts.push({
      category: 'odd headers',
      label: `X-Mock-Session with ${label}`,
      data: requestBytes({
        method: 'POST',
        target: CREATE_PATHS[resource],
        headers: [auth, ['Content-Type', 'application/json'], ['X-Mock-Session', session]],
        body: JSON.stringify(validBody(rng, target, resource)),
      }),
      expect: { statuses: [400], why: 'not a session name' },
    });
  }
  // Prefer acts after security and validation: on a valid body a documented error is its example, a 2xx the real create.
  for (const [prefer, status, why, body] of [
    ['code=999', 400, 'not a documented status', 'valid'],
    ['code=500', 400, 'not a documented status', 'valid'],
    ['code=abc', 400, 'not a status', 'valid'],
    ['code=', 400, 'no status', 'valid'],
    [`code=${'4'.repeat(5000)}`, 400, 'not a documented status', 'valid'],
    ['code=201', 201, 'the real create, recorded', 'valid'],
    ['code=422', 422, 'the documented example, recorded nowhere', 'valid'],
    ['code=201', 400, 'an invalid body stays invalid whatever it prefers', '{}'],
  ] as [string, number, string, string][]) {
    drafts.push({
      category: 'odd headers',
      label: `Prefer: ${prefer.slice(0, 30)} on a create${body === 'valid' ? '' : ' with an invalid body'}`,
      data: requestBytes({
        method: 'POST',
        target: CREATE_PATHS['lot-transfers'],
        headers: [auth, ['Content-Type', 'application/json'], ['Prefer', prefer]],
        body: body === 'valid' ? JSON.stringify(validBody(rng, target, 'lot-transfers')) : body,
      }),
      expect: { statuses: [status], why, ...(status === 201 ? { creates: 'lot-transfers' as const } : {}) },
    });
  }
  const order = `${ORDER_PATH}${encodeURIComponent(target.orderNumbers[0] ?? 'x')}`;
  drafts.push({
    category: 'odd headers',
    label: 'prototype names in the query and in header names',
    data: requestBytes({
      method: 'GET',
      target: `${order}?__proto__[polluted]=1&constructor[prototype][polluted]=1`,
      headers: [auth, ['__proto__', 'x'], ['constructor', 'y']],
    }),
    expect: { statuses: [200], why: 'the query and unknown headers are ignored' },
  });
  drafts.push({
    category: 'odd headers',
    label: '1,000 headers',
    data: requestBytes({
      method: 'GET',
      target: order,
      headers: [auth, ...Array.from({ length: 1000 }, (_, i): [string, string] => [`X-H${i}`, 'v'])],
    }),
    expect: { statuses: [200, 431], why: 'within the 16 KiB limit; Node may cap the header count' },
  });
  drafts.push({
    category: 'odd headers',
    label: 'one 20 KiB header',
    data: requestBytes({ method: 'GET', target: order, headers: [auth, ['X-Big', 'v'.repeat(20 * 1024)]] }),
    expect: { statuses: [431], why: 'over the 16 KiB header limit' },
  });
  return drafts;
}

/** Bytes that are not HTTP at all. */
export function randomBytesRequest(rng: Rng): CaseDraft {
  const bytes = rng.bytes(rng.int(1, 3000));
  bytes[0] = rng.int(0x80, 0xff); // never the start of a request line
  return {
    category: 'random bytes',
    label: `${bytes.length} random bytes instead of a request`,
    data: bytes,
    expect: { statuses: [400], why: 'not HTTP' },
  };
}

/** A request line of printable noise (method, target or version broken). */
export function randomRequestLine(rng: Rng): CaseDraft {
  const line = rng.text(rng.int(1, 300), 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 /%?#:.-_~');
  return {
    category: 'random bytes',
    label: `request line ${JSON.stringify(line.slice(0, 30))}`,
    data: Buffer.from(`${line}\r\n\r\n`, 'latin1'),
    expect: { statuses: [400], why: 'not a valid request line' },
  };
}
