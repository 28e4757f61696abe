/**
 * `npm run lint`: the type check and the type-aware lint of the whole project from ONE TypeScript
 * program. `tsc --noEmit` and ESLint's typed rules each used to build the program of tsconfig.json
 * (parse, bind, check every file: the larger part of each one's time); here the program is built
 * once, its diagnostics are what `tsc --noEmit` reports, and ESLint's rules ask the same checker
 * (`parserOptions.programs`), which has already resolved the types they need.
 *
 * Prints TypeScript's diagnostics as tsc does, then ESLint's results as `eslint .` does; exits 1
 * when either found an error. The files with no types (plain `.mjs`/`.cjs`/browser scripts) keep
 * their configuration in eslint.config.js (type checking off there).
 */
import { ESLint } from 'eslint';
import ts from 'typescript';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from '../contract/paths.js';

/** The program of the project's tsconfig.json (what `tsc --noEmit` checks). */
export function projectProgram(root: string = PROJECT_ROOT): ts.Program {
  const configPath = join(root, 'tsconfig.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configPath,
    { noEmit: true },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (parsed === undefined) throw new Error(`${configPath}: not a TypeScript configuration`);
  if (parsed.errors.length > 0) throw new Error(ts.formatDiagnostics(parsed.errors, formatHost(root)));
  return ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, projectReferences: parsed.projectReferences ?? [] });
}

function formatHost(root: string): ts.FormatDiagnosticsHost {
  return { getCanonicalFileName: (name) => name, getCurrentDirectory: () => root, getNewLine: () => '\n' };
}

/** TypeScript's errors of `program`, formatted as tsc prints them ('' when there are none). */
export function typeErrors(program: ts.Program, root: string = PROJECT_ROOT, color = false): string {
  const diagnostics = ts.getPreEmitDiagnostics(program);
  if (diagnostics.length === 0) return '';
  const host = formatHost(root);
  const text = color ? ts.formatDiagnosticsWithColorAndContext(diagnostics, host) : ts.formatDiagnostics(diagnostics, host);
  return `${text}\nFound ${diagnostics.length} error${diagnostics.length === 1 ? '' : 's'} (TypeScript).\n`;
}

/** ESLint over `patterns` with the configuration of eslint.config.js, its typed rules reading `program`. */
export async function lintWith(program: ts.Program, patterns: string[], root: string = PROJECT_ROOT): Promise<ESLint.LintResult[]> {
  const eslint = new ESLint({
    cwd: root,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parserOptions: { projectService: false, programs: [program] } } }],
  });
  return eslint.lintFiles(patterns);
}

async function main(): Promise<void> {
  const program = projectProgram();
  const types = typeErrors(program, PROJECT_ROOT, process.stdout.isTTY);
  if (types !== '') process.stdout.write(types);
  const results = await lintWith(program, ['.']);
  const eslint = new ESLint({ cwd: PROJECT_ROOT });
  const formatter = await eslint.loadFormatter('stylish');
  const text = await formatter.format(results);
  if (text !== '') process.stdout.write(`${text}\n`);
  const lintErrors = results.reduce((sum, result) => sum + result.errorCount + result.fatalErrorCount, 0);
  if (types !== '' || lintErrors > 0) process.exitCode = 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
