/**
 * The JSON Schema of the JSON report (`conformance.schema.json`, draft 2020-12) and a validator for it:
 * report consumers can validate `conformance.json` with any 2020-12 validator; the tests validate
 * every report the suite writes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { PROJECT_ROOT } from '../contract/paths.js';

const addFormats = addFormatsModule.default;

/** Where the schema is (shipped with the package, next to this file's source). */
export const REPORT_SCHEMA_PATH = join(PROJECT_ROOT, 'report', 'conformance.schema.json');

/** The problems of a report against the schema (`pointer message`); empty when it is valid. */
let compiled: ValidateFunction | undefined;

export function reportProblems(report: unknown): string[] {
  if (compiled === undefined) {
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
    addFormats(ajv);
    compiled = ajv.compile(JSON.parse(readFileSync(REPORT_SCHEMA_PATH, 'utf8')) as object);
  }
  const validate = compiled;
  if (validate(report)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
}
