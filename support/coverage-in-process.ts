/**
 * Loaded first by the coverage run of `npm test` (`mocha --require`): the coverage counts the
 * processes that run the tests, and only them. c8 hands `NODE_V8_COVERAGE` to the process it starts,
 * and every Node child would inherit it and write a coverage file of its own (the CLIs started from
 * `dist/`, Prism, the mock CLI: hundreds of files, none mapping to a TypeScript source). A process
 * that runs tests read it at start-up and still writes its own coverage at exit; only its children no
 * longer see it.
 *
 * With `mocha --parallel` the tests run in worker processes the main process forks: there the main
 * process (which runs no test) keeps the variable, so that its workers are measured, and each worker
 * removes it for its own children. A worker is ended by its pool with SIGTERM one second after it was
 * asked to exit; one still writing a large coverage file on a busy machine would lose it, so an
 * exiting worker ignores SIGTERM (it ends once the file is written). See docs/coverage.md.
 */

/** True in the main process of `mocha --parallel`: it forks the workers (which get MOCHA_WORKER_ID) and runs no test itself. */
export function isParallelMain(argv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  return env['MOCHA_WORKER_ID'] === undefined && argv.some((arg) => arg === '--parallel' || arg === '-p' || arg === '--parallel=true');
}

if (process.env['NODE_V8_COVERAGE'] !== undefined && !isParallelMain(process.argv.slice(2), process.env)) {
  delete process.env['NODE_V8_COVERAGE'];
  if (process.env['MOCHA_WORKER_ID'] !== undefined)
    process.on('exit', () => {
      process.on('SIGTERM', () => {
        // Exiting already: the process ends once its coverage is written.
      });
    });
}
