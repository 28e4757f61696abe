import { readContract } from './contract/document.js';
import { runSelfTest, renderSelfTest } from './conformance/self-test/run.js';
const r = await runSelfTest(readContract());
console.log(renderSelfTest(r, 'bundled'));
