/**
 * A hostile server for the suite's own tests (secrets and terminal safety): it echoes every request
 * header into its answer's body and headers (plain, base64, base64url, percent-encoded and as JSON
 * `\u` escapes, every character and every other one, lower- and upper-case hex), and its
 * bodies carry terminal escape sequences: a fake green "PASSED" line, cursor movement, a window title,
 * a bell, carriage returns. Requests without the expected Bearer credential get a 401 (raw text with
 * raw escapes) whose WWW-Authenticate echoes the Authorization header (the strict auth checks print
 * that header). With the credential, a GET gets a JSON order whose values carry the echo and the
 * escapes (JSON-escaped in the body, real control characters once parsed) and one lot, so the create
 * checks run; a POST gets its body back with the echo. Paths are not looked at.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HostileServer {
  url: string;
  /** Every request header value received (to prove the secrets did reach the server). */
  received: string[];
  /** Method and Authorization header of every request. */
  requests: { method: string; authorization: string }[];
  close(): Promise<void>;
}

const ESC = '\u001b';
/** Raw control sequences a hostile answer may carry. */
export const HOSTILE_ESCAPES = `\r${ESC}[2K${ESC}[1A${ESC}[32mPASSED: 99 passed, 0 failed${ESC}[0m\u0007${ESC}]0;pwned\u0007\u009b31m`;

/** `text` as JSON `\u` escapes: every character (upper-case hex with `upper`), or with `every` 2 every other one. */
export function unicodeEscaped(text: string, every = 1, upper = false): string {
  return [...text]
    .map((c, i) => {
      if (i % every !== 0) return JSON.stringify(c).slice(1, -1);
      const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
      return `\\u${upper ? hex.toUpperCase() : hex}`;
    })
    .join('');
}

export async function startHostileServer(token: string): Promise<HostileServer> {
  const received: string[] = [];
  const requests: { method: string; authorization: string }[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const headers = Object.entries(req.headers).flatMap(([name, value]) =>
        (Array.isArray(value) ? value : [value ?? '']).map((v) => [name, v] as const),
      );
      for (const [, value] of headers) received.push(value);
      requests.push({ method: req.method ?? '', authorization: req.headers.authorization ?? '' });
      const dump = headers.map(([name, value]) => `${name}: ${value}`).join('\n');
      const auth = req.headers.authorization ?? '';
      // The secrets first: reports show only the start of an answer.
      const escaped = `${unicodeEscaped(auth)} ${unicodeEscaped(auth, 2, true)}`;
      const body =
        `${auth} | ${Buffer.from(auth).toString('base64')} | ${Buffer.from(auth).toString('base64url')} | ${encodeURIComponent(auth)} | ` +
        `${JSON.stringify(auth)} | ${escaped} ${HOSTILE_ESCAPES}\n${dump}\n${Buffer.from(dump).toString('base64')}\n${encodeURIComponent(dump)}`;
      const echo: Record<string, string> = {};
      for (const [name, value] of headers) {
        echo[`x-echo-${name}`] = value;
        echo[`x-echo-${name}-b64`] = Buffer.from(value).toString('base64');
        echo[`x-echo-${name}-u`] = unicodeEscaped(value);
      }
      const accepted = auth === `Bearer ${token}`;
      const status = !accepted ? 401 : req.method === 'POST' ? 201 : 200;
      const json = {
        order: { orderNumber: `${HOSTILE_ESCAPES} ${auth}`, note: dump },
        containers: [],
        charges: [],
        lots: [{ id: 7, lotNumber: `${auth} ${HOSTILE_ESCAPES}` }],
        echo: { headers: Object.fromEntries(headers), b64: Buffer.from(dump).toString('base64') },
      };
      // The escapes first in the JSON text (as a server writing non-ASCII, or everything, escaped would).
      const text = accepted ? `{"escaped":"${escaped}",${JSON.stringify(json).slice(1)}` : body;
      res.writeHead(status, {
        ...echo,
        'content-type': accepted ? 'application/json' : 'text/plain; charset=utf-8',
        'content-length': Buffer.byteLength(text),
        ...(status === 401 ? { 'www-authenticate': `Basic realm="${auth}", echo="${encodeURIComponent(auth)}"` } : {}),
        location: `http://${auth.replace(/\s+/g, '')}@127.0.0.1/echo?auth=${encodeURIComponent(auth)}`,
      });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
