// Reads the log of `npm test` (its two mocha runs: the coverage run and the files beside it) and prints
// mocha's failures again without stack frames, then one summary line adding up both runs' closing
// counts ("N passing", "N failing", "N pending"). .ci/run calls it last, so a reader of a CI log's last
// lines finds which tests failed and why. Plain JavaScript: it runs with no tsx and no build.
import { readFileSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';

/** The most lines shown of each run's failures. */
const FAILURE_LINES = 80;

/** The sum of every "<N> <word>" closing line of the log's mocha runs; 0 when no run printed the word. */
function total(lines, word) {
  const pattern = new RegExp(`^ +(\\d+) ${word}\\b`);
  return lines.reduce((sum, line) => sum + Number(pattern.exec(line)?.[1] ?? 0), 0);
}

/** Each run's "N failing" block without stack frames ("    at ..."), at most FAILURE_LINES lines a run. */
function failures(lines) {
  const shown = [];
  let left = 0;
  for (const line of lines) {
    if (/^ +\d+ failing\b/.test(line)) left = FAILURE_LINES;
    if (left > 0 && !/^ +at /.test(line)) {
      shown.push(line);
      left -= 1;
    }
  }
  return shown;
}

const file = process.argv[2];
if (file === undefined) {
  console.error('usage: node scripts/ci-summary.mjs <log of npm test>');
  process.exit(2);
}
// latin1: the log holds box-drawing bytes and colour codes; only ASCII words are read.
const lines = stripVTControlCharacters(readFileSync(file, 'latin1')).split(/\r?\n/);
const failed = total(lines, 'failing');
if (failed > 0) {
  console.log("mocha's failures again, without stack frames:");
  for (const line of failures(lines)) console.log(line);
}
console.log(`mocha: ${total(lines, 'passing')} passed, ${failed} failed, ${total(lines, 'pending')} skipped`);
