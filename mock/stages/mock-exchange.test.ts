/**
 * The mock's exchange is typed by phase: a stage takes the phase it reads, so a list of stages compiles
 * only in an order that gives every stage what it reads. The list that compiles runs on a request, each
 * stage leaving what the next one reads; the lists that must not compile are marked `@ts-expect-error`.
 */
import assert from 'node:assert/strict';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { listOperations, readContract } from '../../contract/document.js';
import { operationsModel } from '../../contract/operations-model.js';
import { CONTRACT_JSON_PATH } from '../../contract/paths.js';
import { authPolicy } from '../auth.js';
import { FaultRules } from '../fault-rules.js';
import { stageList } from '../pipeline.js';
import { preferredAnswers } from '../prefer.js';
import { createRouter } from '../router.js';
import type { Served } from '../served.js';
import { answerStage } from './answer.js';
import { preferStage } from './prefer.js';
import { routeStage } from './route.js';
import { securityStage } from './security.js';
import { targetStage } from './target.js';
import { validateStage } from './validate.js';
import { hostPolicy } from '../host.js';
import { mockExchange, type MockExchange } from './mock-exchange.js';

const document = readContract(CONTRACT_JSON_PATH);
const [operation] = listOperations(document);
if (operation === undefined) throw new Error('the contract has an operation');
const handled: unknown[] = [];
const served: Served = {
  operation,
  method: operation.method,
  path: operation.path,
  model: operationsModel(document).get(operation.operationId),
  steps: { validate: () => 'the checked input', handle: (input) => void handled.push(input) },
  preferred: preferredAnswers(operation),
  writes: false,
};
const rules = new FaultRules(1);
const target = targetStage<MockExchange>({ hosts: hostPolicy('127.0.0.1', []) });
const route = routeStage({ router: createRouter([served]) });
const security = securityStage({ auth: authPolicy([], []) });
const validate = validateStage();
const prefer = preferStage({ rules, latencyMs: 0 });
const answer = answerStage({ faults: { rules, log: () => undefined, quiet: true } });

describe('mock/stages: the exchange typed by phase', () => {
  it('runs the stages in the declared order, each reading what the ones before it left', () => {
    const list = stageList<MockExchange>().add(target).add(route).add(security).add(validate).add(prefer).add(answer);
    assert.deepEqual(list.names, ['target and Host', 'route', 'security', 'validate', 'prefer, faults and latency', 'answer']);
    const path = operation.path.replace(/\{[^}]+\}/g, 'X');
    const req = new IncomingMessage(new Socket());
    req.method = operation.method.toUpperCase();
    req.url = path;
    // Any well-formed credential passes (no --token), whatever the operation's security.
    req.headers = { host: '127.0.0.1', authorization: 'Bearer any-token' };
    const exchange = mockExchange(req, new ServerResponse(req));
    assert.equal(list.runner()(exchange), undefined, 'answered at once: no promise');
    assert.equal(exchange.served, served);
    assert.equal(exchange.validated, true);
    assert.deepEqual(handled, ['the checked input']);
    assert.deepEqual(exchange.preference, { kind: 'real' });

    // What follows is checked when the project compiles (npm test's type check): each line must fail to
    // compile, or its @ts-expect-error is an error itself. A stage cannot come before the stage giving what it reads:
    // @ts-expect-error security reads the routed operation: it cannot come before the route stage
    stageList<MockExchange>().add(target).add(security);
    // @ts-expect-error the route stage reads the parsed target
    stageList<MockExchange>().add(route);
    // @ts-expect-error the prefer stage reads the checked input: validate comes first
    stageList<MockExchange>().add(target).add(route).add(prefer);
    // @ts-expect-error the answer reads the preference
    stageList<MockExchange>().add(target).add(route).add(validate).add(answer);
  });
});
