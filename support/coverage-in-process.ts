/**
 * Loaded first by the coverage run of `npm test` (`mocha --require`): the coverage counts this
 * process only. c8 hands `NODE_V8_COVERAGE` to the process it starts, and every Node child would
 * inherit it and write a coverage file of its own (the CLIs started from `dist/`, Prism, the mock
 * CLI: hundreds of files, none mapping to a TypeScript source). This process read it at start-up and
 * still writes its own coverage at exit; only its children no longer see it. See docs/coverage.md.
 */
delete process.env['NODE_V8_COVERAGE'];
