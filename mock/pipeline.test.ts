import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen } from '../support/loopback.js';
import { ANSWERED, pipelineHandler, stageList, type BaseExchange, type Stage } from './pipeline.js';
import { problem } from './problems.js';
import { sendBody } from './respond.js';

interface Trace {
  ran: string[];
}

const stage = (name: string, outcome: 'go' | 'answered' | 'later' | 'later-answered' | 'throws'): Stage<Trace> => ({
  name,
  run(trace) {
    trace.ran.push(name);
    if (outcome === 'answered') return ANSWERED;
    if (outcome === 'later') return Promise.resolve(trace);
    if (outcome === 'later-answered') return Promise.resolve(ANSWERED);
    if (outcome === 'throws') throw problem('notFound', `${name} refused`);
    return trace;
  },
});

/** Runs `stages`, in order, on `trace`. */
const runStages = (stages: Stage<Trace>[], trace: Trace): void | Promise<void> =>
  stages.reduce((list, next) => list.add(next), stageList<Trace>()).runner()(trace);

describe('mock/pipeline: a list of stages', () => {
  it('runs every stage in order, synchronously while none waits', () => {
    const trace: Trace = { ran: [] };
    const result = runStages([stage('a', 'go'), stage('b', 'go'), stage('c', 'go')], trace);
    assert.equal(result, undefined, 'no promise on an all-synchronous path');
    assert.deepEqual(trace.ran, ['a', 'b', 'c']);
  });

  it('stops at the stage that answered', () => {
    const trace: Trace = { ran: [] };
    assert.equal(runStages([stage('a', 'go'), stage('b', 'answered'), stage('c', 'go')], trace), undefined);
    assert.deepEqual(trace.ran, ['a', 'b']);
  });

  it('goes on after a stage that waits, and stops after one that answered later', async () => {
    const trace: Trace = { ran: [] };
    const pending = runStages([stage('a', 'later'), stage('b', 'go'), stage('c', 'later-answered'), stage('d', 'go')], trace);
    assert.ok(pending instanceof Promise);
    assert.deepEqual(trace.ran, ['a'], 'the rest waits for the first stage that waits');
    await pending;
    assert.deepEqual(trace.ran, ['a', 'b', 'c']);
  });

  it("throws a stage's error at once, or rejects with it after a wait; no later stage runs", async () => {
    const trace: Trace = { ran: [] };
    assert.throws(() => runStages([stage('a', 'throws'), stage('b', 'go')], trace), /a refused/);
    assert.deepEqual(trace.ran, ['a']);
    const later: Trace = { ran: [] };
    await assert.rejects(Promise.resolve(runStages([stage('a', 'later'), stage('b', 'throws'), stage('c', 'go')], later)), /b refused/);
    assert.deepEqual(later.ran, ['a', 'b']);
  });

  it('hands each stage the exchange as the one before it left it, and keeps the names in order', () => {
    interface Counted extends Trace {
      count: number | undefined;
    }
    const counted: Counted = { ran: [], count: undefined };
    const count: Stage<Counted, Counted & { count: number }> = {
      name: 'count',
      run(x) {
        // A new object, so what the next stage reads can only come from what this one returned.
        return { ...x, count: x.ran.length + 41 };
      },
    };
    let seen: number | undefined;
    const read: Stage<Counted & { count: number }> = {
      name: 'read',
      run(x) {
        seen = x.count + 1;
        return ANSWERED;
      },
    };
    const list = stageList<Counted>().add(count).add(read);
    assert.deepEqual(list.names, ['count', 'read']);
    assert.equal(list.runner()(counted), undefined, 'answered at once');
    assert.equal(seen, 42);
    assert.equal(counted.count, undefined);
    // @ts-expect-error a stage that reads the count cannot come before the stage that gives it
    stageList<Counted>().add(read);
  });
});

describe('mock/pipeline: pipelineHandler (errors and the access log in one place)', () => {
  const serve = async (stages: Stage<BaseExchange>[], quiet = false) => {
    const lines: string[] = [];
    const handler = pipelineHandler<BaseExchange>({
      stages: stages.reduce((list, next) => list.add(next), stageList<BaseExchange>()),
      exchange: (req: IncomingMessage, res: ServerResponse) => ({ req, res }),
      log: (line) => lines.push(line),
      quiet,
      who: 'mock',
    });
    const { url, close } = await listen(handler);
    return { lines, url, close };
  };
  const answer: Stage<BaseExchange> = {
    name: 'answer',
    run: ({ res }) => {
      sendBody(res, 200, 'application/json', '{"ok":true}');
      return 'answered';
    },
  };

  it('answers a stage problem as problem+json and logs the request', async () => {
    const refuse: Stage<BaseExchange> = {
      name: 'route',
      run: () => {
        throw problem('notFound', 'There is nothing here.');
      },
    };
    const server = await serve([refuse, answer]);
    try {
      const response = await fetch(`${server.url}/x\u00e9`);
      assert.equal(response.status, 404);
      assert.equal(response.headers.get('content-type'), 'application/problem+json');
      assert.match(await response.text(), /nothing here/);
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.match(server.lines.join('\n'), /^GET \/x%C3%A9 404 \d+\.\dms$/m);
    } finally {
      await server.close();
    }
  });

  it('answers an unexpected error with a logged 500 and keeps serving', async () => {
    let first = true;
    const flaky: Stage<BaseExchange> = {
      name: 'handle',
      run: (x) => {
        if (first) {
          first = false;
          return Promise.reject(new TypeError('boom'));
        }
        return x;
      },
    };
    const server = await serve([flaky, answer], true);
    try {
      const failed = await fetch(`${server.url}/`);
      assert.equal(failed.status, 500);
      assert.match(await failed.text(), /failed unexpectedly.*the mock keeps running/);
      assert.match(server.lines.join('\n'), /internal error on GET \/: TypeError: boom/);
      assert.equal((await fetch(`${server.url}/`)).status, 200, 'the next request is served');
      assert.ok(!server.lines.some((line) => /^GET \/ 200/.test(line)), 'quiet: no access log');
    } finally {
      await server.close();
    }
  });
});
