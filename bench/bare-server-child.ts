/**
 * Child-process entry of the bare server: builds the scenarios from the fixtures, listens on a free
 * loopback port and prints its URL on stdout. Stops on SIGTERM/SIGINT or when the parent goes away.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createBareServer } from './bare-server.js';
import { stopOnSignals } from './child-stop.js';
import { benchFixture, buildScenarios } from './scenarios.js';

const server = createBareServer(buildScenarios(benchFixture()));
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const { port } = server.address() as AddressInfo;
process.stdout.write(`http://127.0.0.1:${port}\n`);

stopOnSignals(
  () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
);
