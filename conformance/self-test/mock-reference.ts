/**
 * The mock-based reference server, for the contracts the hand-written one cannot serve: the in-process
 * mock is the correct base (stateful, every role, every security scheme, from the contract alone), and
 * each faulty server is a front (`front.ts`) applying its faults' overrides (`overrides.ts`) on the way
 * to and from it. One mock serves every front of a self-test run, each front in a session of its own
 * (`X-Mock-Session`), reset when the front closes.
 */
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenApiDocument } from '../../contract/document.js';
import type { OperationModel } from '../../contract/operations-model.js';
import { judgeContexts } from '../../judgments/context.js';
import { createMockServer } from '../../mock/index.js';
import { DEFAULT_REJECTED_TOKEN } from '../config.js';
import { credentialsFor, withQuery } from '../../checks/credentials.js';
import { forwarder, routerOf, startFront } from './front.js';
import { REFERENCE_VALUES, transformsOf, type FaultScope } from './overrides.js';
import { REFERENCE_TOKEN, type ReferenceServer } from './reference-server.js';

export interface MockBase {
  /** A reference server with these faults (none: the correct one), in a session of its own. */
  startReference(faults: readonly string[]): Promise<ReferenceServer>;
  /** Stops the mock (its fronts first). */
  close(): Promise<void>;
}

/** Starts the mock serving `document` (written to a temporary file, removed on close), accepting the self-test's credentials. */
export async function startMockBase(document: OpenApiDocument): Promise<MockBase> {
  const folder = mkdtempSync(join(tmpdir(), 'goods-self-test-'));
  const contractPath = join(folder, 'contract.json');
  writeFileSync(contractPath, JSON.stringify(document));
  let mock: Awaited<ReturnType<typeof createMockServer>>;
  try {
    mock = await createMockServer({
      host: '127.0.0.1',
      port: 0,
      quiet: true,
      log: () => undefined,
      contractPath,
      // Every credential the suite sends as valid: the token (bearer, API key) and its Basic form.
      tokens: [REFERENCE_TOKEN, `conformance:${REFERENCE_TOKEN}`],
      rejectTokens: [DEFAULT_REJECTED_TOKEN],
      // One session per faulty server of the run (each reset when its front closes).
      maxSessions: 1_000_000,
    });
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  const jc = judgeContexts(document).strict;
  const { model } = jc;
  const route = routerOf(model);
  const agent = new http.Agent({ keepAlive: true });
  const open = new Set<ReferenceServer>();
  let sessions = 0;
  return {
    async startReference(faults) {
      const session = `self-test-${++sessions}`;
      const send = forwarder(mock.url, session, agent);
      const scopeOf = (op: OperationModel, args: readonly string[]): FaultScope => ({
        model,
        judge: jc,
        op,
        args,
        send,
        internal(id, params, body) {
          const target = model.get(id);
          const parts = credentialsFor(target.security, REFERENCE_VALUES)?.parts ?? { headers: {}, query: [] };
          return send({
            method: target.method,
            path: model.pathOf(id, params),
            search: withQuery('', parts.query),
            headers: {
              accept: 'application/json',
              ...parts.headers,
              ...(body !== undefined ? { 'content-type': target.requestMediaType ?? 'application/json' } : {}),
            },
            ...(body !== undefined ? { body: Buffer.from(JSON.stringify(body)) } : {}),
            chunked: false,
          });
        },
      });
      const front = await startFront(route, transformsOf(faults, model, scopeOf), send);
      const server: ReferenceServer = {
        url: front.url,
        async close() {
          open.delete(server);
          await front.close();
          // The session's records are dropped: a run of hundreds of faults holds only those of the fronts open.
          await send({ method: 'POST', path: '/__mock/reset', search: '', headers: { 'x-mock-reset': '1' }, chunked: false }).catch(
            () => undefined,
          );
        },
      };
      open.add(server);
      return server;
    },
    async close() {
      await Promise.all([...open].map((s) => s.close()));
      agent.destroy();
      await mock.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** One mock-based reference server with a mock of its own (closed with it). */
export async function startMockReference(document: OpenApiDocument, faults: readonly string[] = []): Promise<ReferenceServer> {
  const base = await startMockBase(document);
  try {
    const server = await base.startReference(faults);
    return { url: server.url, close: () => base.close() };
  } catch (error) {
    await base.close();
    throw error;
  }
}
