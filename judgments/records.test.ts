/** The list-filter judge on a list without an answer: judged only when its filter singles out this run's records. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readContract } from '../contract/document.js';
import { operationsModel } from '../contract/operations-model.js';
import { PROJECT_ROOT } from '../contract/paths.js';
import { judgeListFilters, type ListStep, type RecordSequence } from './records.js';

describe('judgeListFilters: a list without an answer', () => {
  const model = operationsModel(readContract(join(PROJECT_ROOT, 'docs', 'examples', 'books.yaml')));
  const resource = model.resources.find((r) => r.lists.length > 0) ?? assert.fail('the books API has a list');
  const seq: RecordSequence = { resource, created: [], reads: [], lists: [], changes: [], actions: [], deletes: [] };
  const step = (singlesOut: boolean): ListStep => ({
    name: 'author of record A',
    filters: { author: 'A-RUN-1' },
    ...(singlesOut ? { singlesOut } : {}),
    exchange: { request: { method: 'GET', path: '/books?author=A-RUN-1', headers: {} }, error: 'answer larger than 1 MiB' },
  });

  it('filtered to values only the run carries: a violation naming why it could not be read', () => {
    const [violation, ...more] = judgeListFilters(seq, step(true));
    assert.equal(more.length, 0);
    assert.equal(violation?.reason, 'answer larger than 1 MiB');
  });

  it('any other list without an answer is not judged here (no filter: every record of the server may be many)', () => {
    assert.deepEqual(judgeListFilters(seq, step(false)), []);
  });
});
