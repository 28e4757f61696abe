/**
 * The JSON report: the verdict as it is (see `results.ts`), described by the JSON Schema
 * `conformance.schema.json` next to this file (draft 2020-12). A pure function of the verdict.
 */
import type { Verdict } from './results.js';

export function renderJson(verdict: Verdict): string {
  return `${JSON.stringify(verdict, null, 2)}\n`;
}
