/**
 * The report files of a run: `conformance.json`, `junit.xml`, `conformance.html` in the output folder,
 * one per reporter asked for. The verdict is sanitized here (every credential redacted, control
 * characters escaped, no URL userinfo) before any renderer sees it, so no file can carry a secret.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReporterName } from './config.js';
import { sanitizeVerdict, type Redactor } from './secrets.js';
import { renderHtml } from '../report/html.js';
import { renderJson } from '../report/json.js';
import { renderJunit } from '../report/junit.js';
import type { Verdict } from '../report/results.js';

/** The file each file reporter writes, and its renderer (a pure function of the verdict). */
export const REPORT_FILES: Record<Exclude<ReporterName, 'console'>, { file: string; render: (verdict: Verdict) => string }> = {
  json: { file: 'conformance.json', render: renderJson },
  junit: { file: 'junit.xml', render: renderJunit },
  html: { file: 'conformance.html', render: renderHtml },
};

export interface WriteReportsOptions {
  reporters: readonly ReporterName[];
  outputDir: string;
  redactor: Redactor;
}

/**
 * Writes one file per file reporter in `reporters`; answers the paths written and the sanitized
 * verdict they were rendered from (the summary is rendered from it too: one sanitizing pass a run).
 */
export function writeReports(verdict: Verdict, options: WriteReportsOptions): { files: string[]; shown: Verdict } {
  const shown = sanitizeVerdict(verdict, options.redactor);
  const files: string[] = [];
  for (const name of ['json', 'junit', 'html'] as const) {
    if (!options.reporters.includes(name)) continue;
    mkdirSync(options.outputDir, { recursive: true });
    const file = join(options.outputDir, REPORT_FILES[name].file);
    writeFileSync(file, REPORT_FILES[name].render(shown));
    files.push(file);
  }
  return { files, shown };
}
