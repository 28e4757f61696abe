/**
 * The README's Quick start as a newcomer runs it, for the tests and the screenshot that show what it
 * leads to: its commands are read from the README (the first sh block of "Quick start"): the mock
 * started with the options given there (on a free port instead of 4010, from this checkout), each
 * `curl` line against it, then the conformance run against it. A command it does not know stops it,
 * so the README cannot grow a step that these do not take.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../contract/paths.js';
import { runToExit, startChild, waitForLine, type Child } from '../../support/processes.js';
import { projectCli } from '../../support/project-cli.js';
import { sectionText, shellCommands } from '../markdown.js';

/** The mock's address in the README's commands. */
const README_URL = 'http://127.0.0.1:4010';

export interface QuickStart {
  /** The mock, started as the Quick start starts it. */
  mock: Child;
  url: string;
  /** The dashboard link the mock's start banner printed. */
  dashboard: string;
  /** What the conformance run printed (empty when it was not run). */
  conformance: string;
  stop(): Promise<void>;
}

/** The words of a command line without quotes (the Quick start's `npm` lines). */
function words(line: string): string[] {
  if (/['"\\$`]/.test(line)) throw new Error(`cannot split a command line with quotes or expansions: ${line}`);
  return line.split(/\s+/).filter(Boolean);
}

/** The commands of the Quick start's first sh block, as written. */
export function quickStartCommands(): string[] {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  return shellCommands(sectionText(readme, 'Quick start'))
    .filter((command) => command.block === 0)
    .map((command) => command.command);
}

/** Runs the Quick start (the conformance run only when asked: it takes seconds); the caller stops the mock. */
export async function runQuickStart(options: { conformance: boolean }): Promise<QuickStart> {
  const commands = quickStartCommands();
  const start = commands.find((command) => command.startsWith('npm start -- '));
  if (start === undefined) throw new Error(`the Quick start starts no mock with "npm start -- ...": ${commands.join(' | ')}`);
  const args = words(start.slice('npm start -- '.length));
  const mock = startChild(
    'goods-mock (Quick start)',
    projectCli('mock/cli', [...args, ...(args.includes('--port') ? [] : ['--port', '0'])]),
  );
  const stop = (): Promise<void> => mock.stop();
  try {
    const url = await waitForLine(mock, /listening on (http:\/\/\S+)/, 60_000);
    const dashboard = await waitForLine(mock, /^Dashboard: (\S+)/, 5_000);
    let conformance = '';
    for (const command of commands) {
      const here = command.replaceAll(README_URL, url);
      if (command === 'npm ci' || command === start) continue;
      if (command.startsWith('curl ')) {
        const run = await runToExit(command, { command: 'sh', args: ['-c', here] }, { timeoutMs: 30_000 });
        if (run.code !== 0) throw new Error(`the Quick start's ${command} exited ${String(run.code)}:\n${run.output}`);
      } else if (command.startsWith('npm run conformance -- ')) {
        if (!options.conformance) continue;
        const run = await runToExit(
          'goods-conformance (Quick start)',
          projectCli('conformance/cli', words(here.slice('npm run conformance -- '.length))),
          {
            timeoutMs: 180_000,
          },
        );
        if (run.code !== 0) throw new Error(`the Quick start's conformance run exited ${String(run.code)}:\n${run.output}`);
        conformance = run.output;
      } else {
        throw new Error(`the Quick start has a command this helper does not run: ${command}`);
      }
    }
    return { mock, url, dashboard, conformance, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
