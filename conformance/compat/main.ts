/**
 * `goods-conformance compat OLD NEW ...`: the arguments after `compat` → CompatConfig → runCompat → the
 * console report and the exit code (0 compatible for what --fail-on names, 1 breaking for it, 2 could
 * not compare). The CLI (`conformance/cli.ts`) hands over argv and where to write; nothing here reads
 * the process.
 */
import { messageOf } from '../../util/errors.js';
import { escapeControls } from '../secrets.js';
import { StartError } from '../start-error.js';
import { COMPAT_HELP, parseCompatArgs } from './args.js';
import { renderHuman } from './human.js';
import { runCompat } from './run.js';

export interface CompatIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

export async function compatMain(argv: readonly string[], io: CompatIo): Promise<0 | 1 | 2> {
  try {
    const parsed = parseCompatArgs(argv);
    if (parsed.help) {
      io.stdout(`${COMPAT_HELP}\n`);
      return 0;
    }
    const { report, files } = await runCompat(parsed.config);
    io.stdout(renderHuman(report));
    for (const file of files) io.stdout(`wrote ${escapeControls(file)}\n`);
    if (report.error !== undefined) io.stderr(`goods-conformance compat: ${escapeControls(report.error)}\n`);
    return report.exitCode;
  } catch (error) {
    if (error instanceof StartError) {
      io.stderr(`goods-conformance compat: ${escapeControls(error.reason)}; ${escapeControls(error.fix)}\n`);
      return 2;
    }
    io.stderr(`goods-conformance compat: could not compare: ${escapeControls(messageOf(error))}; report this with the command line used\n`);
    return 2;
  }
}
