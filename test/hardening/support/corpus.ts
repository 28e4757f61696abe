/**
 * The hostile-input corpus: fixed families (every method on every path, authorization, content
 * types, numbers, long strings, deep JSON, percent-encoding, big bodies) plus seeded random cases
 * up to the requested count. The same seed gives the same corpus.
 */
import {
  bomBody,
  deepJson,
  duplicateKeys,
  longStringCases,
  malformedJson,
  numberCases,
  protoMembers,
  protoStrings,
  randomBytesBody,
  randomJsonish,
  truncatedJson,
  unicodeInvalid,
  unicodeValid,
  type CaseDraft,
} from './corpus-bodies.js';
import {
  authorizationCases,
  bigBodyCases,
  contentTypeCases,
  headerCases,
  longNumberCases,
  methodMatrix,
  percentCases,
  randomAuthorization,
  randomBytesRequest,
  randomOrderNumber,
  randomRequestLine,
  truncatedBody,
} from './corpus-http.js';
import type { CorpusTarget, HostileCase } from './corpus-types.js';
import { Rng } from './rng.js';

type Generator = (rng: Rng, target: CorpusTarget) => CaseDraft;

/** Random families with their weights. */
const RANDOM: [Generator, number][] = [
  [(rng) => randomBytesRequest(rng), 3],
  [(rng) => randomRequestLine(rng), 2],
  [randomBytesBody, 3],
  [randomJsonish, 2],
  [truncatedJson, 3],
  [malformedJson, 3],
  [duplicateKeys, 2],
  [protoMembers, 3],
  [unicodeValid, 2],
  [unicodeInvalid, 2],
  [truncatedBody, 2],
  [randomAuthorization, 2],
  [randomOrderNumber, 2],
];

export function buildCorpus(seed: number, target: CorpusTarget, count: number): HostileCase[] {
  const rng = new Rng(seed);
  const drafts: CaseDraft[] = [
    ...methodMatrix(rng, target),
    ...authorizationCases(rng, target),
    ...contentTypeCases(rng, target),
    ...numberCases(target),
    ...longStringCases(target),
    ...deepJson(target),
    ...protoStrings(target),
    bomBody(target),
    ...percentCases(target),
    ...longNumberCases(rng, target),
    ...headerCases(rng, target),
    ...bigBodyCases(rng, target),
  ];
  const total = RANDOM.reduce((sum, [, weight]) => sum + weight, 0);
  while (drafts.length < count) {
    let roll = rng.next() * total;
    for (const [generate, weight] of RANDOM) {
      roll -= weight;
      if (roll < 0) {
        drafts.push(generate(rng, target));
        break;
      }
    }
  }
  // Shuffle (Fisher-Yates), so the big and the small, the valid and the hostile are interleaved.
  for (let i = drafts.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [drafts[i], drafts[j]] = [drafts[j] as CaseDraft, drafts[i] as CaseDraft];
  }
  return drafts.map((draft, id) => ({ id, ...draft }));
}
