/**
 * The `format` keyword judged by each format's own grammar (the RFC's ABNF), not by a lenient
 * approximation. ajv-formats' `date-time` accepts forms RFC 3339 §5.6 forbids: an offset without its
 * colon (`+0000`) or without minutes (`+05`), a space or any white space for `T`, and any time whose
 * hour passes 23 when the offset brings it to 23:59 UTC (its leap-second rule); its `uri-reference`
 * accepts `"`. @hyperjump/json-schema-formats implements every format of JSON Schema 2020-12 from its
 * RFC (the JSON Schema Test Suite's cases), so these replace ajv-formats' where both have one and add
 * those it lacks (`iri`, `iri-reference`). ajv-formats keeps the OpenAPI formats it alone knows
 * (`int32`, `int64`, `float`, `double`, `byte`, `password`, `binary`) and `hostname`: the library's
 * hostname checks (`hostname`, `idn-hostname`, `idn-email`) print every refused name to the console,
 * which would land in the mock's log and the suite's report (`idn-*` stay unknown, as before).
 */
import {
  isDate,
  isDateTime,
  isDuration,
  isEmail,
  isIPv4,
  isIPv6,
  isIri,
  isIriReference,
  isJsonPointer,
  isRegex,
  isRelativeJsonPointer,
  isTime,
  isUri,
  isUriReference,
  isUriTemplate,
  isUuid,
} from '@hyperjump/json-schema-formats';
import type { Ajv2020 } from 'ajv/dist/2020.js';

/** Each string format of JSON Schema 2020-12 and the RFC grammar that decides it. */
export const RFC_FORMATS: Readonly<Record<string, (value: string) => boolean>> = {
  date: isDate,
  time: isTime,
  'date-time': isDateTime,
  duration: isDuration,
  email: isEmail,
  ipv4: isIPv4,
  ipv6: isIPv6,
  uri: isUri,
  'uri-reference': isUriReference,
  iri: isIri,
  'iri-reference': isIriReference,
  uuid: isUuid,
  'uri-template': isUriTemplate,
  'json-pointer': isJsonPointer,
  'relative-json-pointer': isRelativeJsonPointer,
  regex: isRegex,
};

/** Registers the RFC grammars on an ajv instance (after ajv-formats: the same names are replaced). */
export function addRfcFormats(ajv: Ajv2020): void {
  for (const [name, validate] of Object.entries(RFC_FORMATS)) ajv.addFormat(name, { type: 'string', validate });
}
