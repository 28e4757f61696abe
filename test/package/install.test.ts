/**
 * The package as a user's project meets it: `npm pack` of this repository, `npm install <tarball>`
 * (dependencies from the npm registry) into an empty project in a temporary folder, then from that
 * folder the bins (`npx goods-mock`, `npx goods-team-mock`, `npx goods-conformance`), the client's types
 * under the project's own TypeScript, and the mock's API from a plain ESM script. One pack and one
 * install serve every case.
 *
 * The tarball's content is checked both ways: everything the bins and the library read at run time is
 * in it (every module a shipped module imports, every data file of the run-time folders, the targets of
 * `bin` and `exports`), and nothing users do not need is (tests, bench, scripts, TypeScript sources,
 * source maps). Its size and file count are figures of the docs (support/figures.ts).
 *
 * A second project, made with `npm init -y` as a frontend team's is, gets the tarball alone: what that
 * install adds (packages, MB) is measured and held under the goal, without the optional peer
 * dependencies (the suite's runner, Prism), whose absence the bins name in one line;
 * the client's documented example (docs/client.md) is compiled there as written.
 */
import assert from 'node:assert/strict';
import { builtinModules } from 'node:module';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { runToExit, startChild, waitForLine, type Child } from '../../support/processes.js';
import { figure } from '../../support/figures.js';
import { PROJECT_ROOT } from '../../contract/paths.js';
import { SUITE_PEERS } from '../../conformance/peers.js';
import { readContract } from '../../contract/document.js';
import { PRISM_PACKAGE } from '../../mock/prism-fallback.js';
import { editedContract, pairNamed } from '../../conformance/testing/compat-pairs.js';
import { redisAvailable } from '../../support/redis.js';
import { until } from '../../support/wait.js';
import { parse } from 'yaml';

/** The folders whose non-TypeScript files the code reads at run time (the contract, fixtures, dashboard, ...). */
const RUNTIME_FOLDERS = ['contract', 'mock', 'conformance', 'client', 'fixtures'];
const ORDER_PATH = '/manualProduction/rest/v1/orders/info/';
const MY_ORDER = 'MY-4711';

interface WorkflowStep {
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}

/** The steps of the reusable workflow, in order. */
function workflowSteps(): WorkflowStep[] {
  const workflow = parse(readFileSync(join(PROJECT_ROOT, '.github', 'workflows', 'conformance.yml'), 'utf8')) as {
    jobs: Record<string, { steps: WorkflowStep[] }>;
  };
  return Object.values(workflow.jobs).flatMap((job) => job.steps);
}

/** Replaces each `${{ name }}` by its value in `context`; an expression the context lacks is an error. */
function evaluate(text: string, context: Record<string, string>): string {
  return text.replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, name: string) => {
    const value = context[name];
    assert.ok(value !== undefined, `the workflow uses \${{ ${name} }}, which this test does not provide`);
    return value;
  });
}

interface PackageJson {
  name: string;
  version: string;
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
}

const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as PackageJson;
const TYPESCRIPT_VERSION = pkg.devDependencies['typescript'] ?? '5.9.3';
/** The suite's optional peer dependencies at the versions the project is tested with (what docs/package.md tells backend teams to add). */
const SUITE_PEER_SPECS = SUITE_PEERS.map((name) => `${name}@${pkg.devDependencies[name] ?? pkg.peerDependencies[name] ?? ''}`);

/** The most that installing the package (the mock and the client) may add to a project, in MB (10^6 bytes). */
const INSTALL_GOAL_MB = 60;

/**
 * The disk space below `dir`, as `du` counts it (the blocks of every file and folder: many small files
 * take more room than their sizes add up to), and the packages in it (a folder with a package.json
 * right under a node_modules).
 */
function installedTree(dir: string): { bytes: number; packages: string[] } {
  let bytes = 0;
  const packages: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() || entry.isDirectory()) bytes += statSync(path).blocks * 512;
    const folder = relative(dir, entry.parentPath).split(sep).join('/');
    if (entry.isFile() && entry.name === 'package.json' && /(^|\/)node_modules\/(@[^/]+\/)?[^/@.][^/]*$/.test(folder))
      packages.push(folder);
  }
  return { bytes, packages };
}

/** The fenced blocks of `lang` in a Markdown text, in order. */
function fencedBlocks(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(new RegExp(`^\`\`\`${lang}\n([\\s\\S]*?)^\`\`\``, 'gm'))].map((match) => match[1] ?? '');
}

/**
 * The environment of a user's shell: none of the `npm_*` variables of the `npm test` running us (an
 * inherited `npm_config_local_prefix` would make the inner `npm install` write into this repository).
 * SCARF_ANALYTICS=false keeps the postinstall of `@scarf/scarf` (a dependency of swagger-ui-dist) from
 * calling out: the test reaches the npm registry and loopback only.
 */
function userEnv(): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && !['INIT_CWD', 'NODE_OPTIONS'].includes(key)),
    ),
    SCARF_ANALYTICS: 'false',
  };
}

/** Runs a command to its end (through the project's child-process helper) and answers its exit code and output. */
async function run(
  cwd: string,
  command: string,
  args: string[],
  timeoutMs = 120_000,
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  const { code, output } = await runToExit(
    `${command} ${args.join(' ')}`,
    { command, args },
    { cwd, env: { ...userEnv(), ...env }, timeoutMs },
  );
  return { code, output };
}

async function mustRun(cwd: string, command: string, args: string[], timeoutMs?: number): Promise<string> {
  const { code, output } = await run(cwd, command, args, timeoutMs);
  assert.equal(code, 0, `\`${command} ${args.join(' ')}\` in ${cwd} exited ${code}:\n${output}`);
  return output;
}

/** The mocks this file started, stopped in its `after` hook whatever happened. */
const mocks = new Set<Child>();

/** `npx --no -- goods-mock --port 0 ...args` from `cwd` (never downloads a bin of that name from the registry). */
async function startMock(cwd: string, args: string[] = []): Promise<{ child: Child; url: string }> {
  const child = startChild(
    'goods-mock',
    { command: 'npx', args: ['--no', '--', 'goods-mock', '--port', '0', ...args] },
    { cwd, env: userEnv() },
  );
  mocks.add(child);
  const url = await waitForLine(child, /listening on (http:\/\/\S+)/, 30_000);
  return { child, url };
}

async function orderAnswer(url: string, number: string): Promise<{ status: number; orderNumber: string | undefined }> {
  const answer = await fetch(`${url}${ORDER_PATH}${encodeURIComponent(number)}`, { headers: { authorization: 'Bearer dev-token' } });
  const body = (await answer.json()) as { order?: { orderNumber?: string } };
  return { status: answer.status, orderNumber: body.order?.orderNumber };
}

/** Every file below `root` (paths relative to it, `/`-separated), without nested `node_modules`. */
function filesBelow(root: string): string[] {
  return readdirSync(root, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .filter((path) => !path.startsWith('node_modules/'))
    .sort();
}

/** The module specifiers of a JavaScript or declaration file (static and dynamic imports, re-exports). */
function specifiersOf(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])([\w@./:-]+)\1/g)].map((match) => match[2] ?? '');
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/** A tsconfig of a user project that type-checks `file` strictly, declarations included (skipLibCheck off). */
const tsconfig = (file: string) =>
  `${JSON.stringify(
    {
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2022', 'DOM'],
        types: [],
        strict: true,
        noEmit: true,
        skipLibCheck: false,
      },
      files: [file],
    },
    null,
    2,
  )}\n`;

type Finished = { code: number | null; output: string };

/**
 * Writes two TypeScript projects into the user project, one using the client's types rightly, one wrongly, and
 * starts `tsc --noEmit` on both at once (each takes seconds: skipLibCheck is off); each case awaits its own.
 */
function startTypeChecks(project: string): { uses: Promise<Finished>; misuses: Promise<Finished> } {
  writeFileSync(
    join(project, 'uses-client.ts'),
    [
      "import { createGoodsClient, type LotTransferCreate, type OrderInfo } from 'goods-contract-harness/client';",
      '',
      "const api = createGoodsClient({ baseUrl: 'http://127.0.0.1:4010', token: 'dev-token', session: 'alice' });",
      '',
      'export async function lotNumbers(orderNumber: string): Promise<string[]> {',
      '  const answer = await api.getOrderInfo(orderNumber);',
      '  if (answer.error) throw new Error(`${answer.status}: ${answer.error.title}`);',
      '  const info: OrderInfo = answer.data;',
      '  return info.lots.map((lot) => lot.lotNumber);',
      '}',
      '',
      "export const transfer: LotTransferCreate = { fk_lot_id: 2001, source_scancode: 'A', target_scancode: 'B', amount: 1 };",
      'export const created = api.createLotTransfer(transfer).then((answer) => answer.data?.id);',
      '',
    ].join('\n'),
  );
  writeFileSync(join(project, 'tsconfig.json'), tsconfig('uses-client.ts'));
  writeFileSync(
    join(project, 'misuses-client.ts'),
    [
      "import { createGoodsClient, type LotTransferCreate } from 'goods-contract-harness/client';",
      '',
      "const api = createGoodsClient({ baseUrl: 'http://127.0.0.1:4010', token: 'dev-token' });",
      '',
      'export async function firstLot(): Promise<number | undefined> {',
      "  const answer = await api.getOrderInfo('ORD-2026-0001');",
      '  const lotNumber: number | undefined = answer.data?.lots[0]?.lotNumber;',
      '  return lotNumber;',
      '}',
      '',
      "export const transfer: LotTransferCreate = { fk_lot_id: 2001, source_scancode: 'A', target_scancode: 'B' };",
      '',
    ].join('\n'),
  );
  writeFileSync(join(project, 'tsconfig.misuse.json'), tsconfig('misuses-client.ts'));
  const tsc = (config: string): Promise<Finished> => {
    const finished = run(project, 'npx', ['--no', '--', 'tsc', '--noEmit', '-p', config]);
    finished.catch(() => undefined); // awaited (and reported) by its case
    return finished;
  };
  return { uses: tsc('tsconfig.json'), misuses: tsc('tsconfig.misuse.json') };
}

describe('the package installed into a user project (npm pack → npm install <tarball>)', function () {
  let work = '';
  let project = '';
  /** A project as `npm init -y` makes it (CommonJS), with the tarball alone installed. */
  let fresh = '';
  /** What installing the tarball added to `fresh`. */
  let freshTree: { bytes: number; packages: string[] } = { bytes: 0, packages: [] };
  let installed = '';
  let shipped: string[] = [];
  let tarballKib = 0;
  let typeChecks: { uses: Promise<Finished>; misuses: Promise<Finished> } | undefined;

  before(async function () {
    this.timeout(600_000);
    work = realpathSync(mkdtempSync(join(tmpdir(), 'goods-package-')));
    project = join(work, 'project');
    fresh = join(work, 'fresh-project');
    mkdirSync(project);
    mkdirSync(fresh);
    // `npm publish` runs the `prepare` script (the build) before it packs. Here the build runs only when a
    // source is newer than dist/ (build-if-stale: `npm test` has just built, or found nothing changed), and the
    // pack skips the scripts: the same files, without compiling the whole project a second time.
    await mustRun(PROJECT_ROOT, 'node', [join('scripts', 'build-if-stale.mjs')], 300_000);
    await mustRun(PROJECT_ROOT, 'npm', ['pack', '--ignore-scripts', '--pack-destination', work, '--silent'], 300_000);
    const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
    assert.ok(tarball, `npm pack wrote no .tgz into ${work}`);
    writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'user-project', private: true, type: 'module' }, null, 2)}\n`);
    await mustRun(fresh, 'npm', ['init', '-y']);
    const install = ['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, tarball)];
    // A backend team's project adds the suite's optional peers; a frontend team's (fresh) only the package.
    await Promise.all([
      mustRun(project, 'npm', [...install, `typescript@${TYPESCRIPT_VERSION}`, ...SUITE_PEER_SPECS], 300_000),
      mustRun(fresh, 'npm', install, 300_000),
    ]);
    freshTree = installedTree(fresh);
    // the project's own fixture folder: a copy of a bundled order under another number
    const fixture = JSON.parse(readFileSync(join(PROJECT_ROOT, 'fixtures', 'orders', 'ORD-2026-0001.json'), 'utf8')) as {
      order: { orderNumber: string };
    };
    fixture.order.orderNumber = MY_ORDER;
    mkdirSync(join(project, 'my-orders'));
    writeFileSync(join(project, 'my-orders', `${MY_ORDER}.json`), `${JSON.stringify(fixture, null, 2)}\n`);
    installed = join(project, 'node_modules', pkg.name);
    shipped = filesBelow(installed);
    tarballKib = statSync(join(work, tarball)).size / 1024;
    console.log(`      tarball ${tarball}: ${tarballKib.toFixed(1)} KiB, ${shipped.length} files`);
    console.log(
      `      npm install of the tarball into an empty project: ${freshTree.packages.length} packages, ${(freshTree.bytes / 1e6).toFixed(1)} MB`,
    );
  });

  after(async function () {
    this.timeout(180_000); // two freshly installed node_modules trees to delete: slow when the disk is busy
    await Promise.all([...mocks].map((child) => child.stop()));
    // The type checks run in the project folder: let them end before it is deleted.
    if (typeChecks !== undefined) await Promise.allSettled([typeChecks.uses, typeChecks.misuses]);
    if (work !== '') await rm(work, { recursive: true, force: true });
  });

  describe('the tarball', () => {
    it('finds the static and dynamic imports and re-exports of a module (the import check can fail)', () => {
      const text =
        "import a from './a.js';\nexport * from '../b.js';\nconst c = await import('pactum');\nimport './d.js';\nconst t = `from '${x}'`;";
      assert.deepEqual(specifiersOf(text), ['./a.js', '../b.js', 'pactum', './d.js']);
    });

    it('has the size and file count the docs state (figures tarball-kib, tarball-files)', () => {
      figure('tarball-kib', tarballKib);
      figure('tarball-files', shipped.length);
    });

    it('holds the targets of bin and exports, the licence and the readme', () => {
      const exportTargets = Object.values(pkg.exports).flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target)));
      for (const file of [...Object.values(pkg.bin), ...exportTargets, 'LICENSE', 'README.md', 'package.json']) {
        assert.ok(shipped.includes(file.replace(/^\.\//, '')), `${file} is not in the tarball`);
      }
    });

    it('holds every data file of the run-time folders (contract, fixtures, dashboard, ...)', () => {
      // Test helpers (conformance/testing/: the reference server's TLS test certificate) are not run-time files.
      const needed = RUNTIME_FOLDERS.flatMap((folder) => filesBelow(join(PROJECT_ROOT, folder)).map((path) => `${folder}/${path}`)).filter(
        (path) => !path.endsWith('.ts') && !path.startsWith('conformance/testing/'),
      );
      assert.ok(
        needed.includes('contract/generated/openapi.json') && needed.includes('mock/dashboard/index.html'),
        'the walk finds the data files',
      );
      assert.deepEqual(
        needed.filter((path) => !shipped.includes(path)),
        [],
        'data files missing from the tarball',
      );
    });

    it('holds every module that a shipped module imports, and imports only dependencies and (optional) peer dependencies', () => {
      const modules = shipped.filter((path) => path.endsWith('.js') && path.startsWith('dist/'));
      assert.ok(modules.length > 20, 'the compiled modules are shipped');
      const missing: string[] = [];
      const undeclared: string[] = [];
      for (const file of [...modules, ...shipped.filter((path) => path.endsWith('.d.ts'))]) {
        for (const specifier of specifiersOf(readFileSync(join(installed, file), 'utf8'))) {
          if (specifier.startsWith('.')) {
            const target = join(dirname(file), specifier).split(sep).join('/');
            const candidates = file.endsWith('.d.ts') ? [target.replace(/\.js$/, '.d.ts'), target] : [target];
            if (!candidates.some((candidate) => shipped.includes(candidate))) missing.push(`${file} → ${specifier}`);
          } else if (file.endsWith('.js') && !specifier.startsWith('node:') && !builtinModules.includes(specifier)) {
            const name = packageNameOf(specifier);
            if (pkg.dependencies[name] === undefined && pkg.peerDependencies[name] === undefined) undeclared.push(`${file} → ${specifier}`);
          }
        }
      }
      assert.deepEqual(missing, [], 'imports of files not in the tarball');
      assert.deepEqual(undeclared, [], 'imports of packages that are not in "dependencies" nor "peerDependencies"');
    });

    it('holds nothing users do not need: no tests, bench, scripts, TypeScript sources, source maps', () => {
      const unwanted = shipped.filter(
        (path) =>
          /\.test\.|\.map$|tsbuildinfo|(^|\/)testing(\/|\.)/.test(path) ||
          (path.endsWith('.ts') && !path.endsWith('.d.ts')) ||
          /^(dist\/)?(bench|scripts|test|docs|\.github|\.ci)\//.test(path) ||
          /^(tsconfig|eslint|\.)/.test(path),
      );
      assert.deepEqual(unwanted, []);
    });
  });

  describe('what installing it adds to a frontend project (npm init -y, then the tarball alone)', () => {
    it(`adds the mock and the client within ${INSTALL_GOAL_MB} MB, without the optional peers: the suite's runner, Prism (figures install-packages, install-mb)`, () => {
      const mb = freshTree.bytes / 1e6;
      const top = readdirSync(join(fresh, 'node_modules'))
        .flatMap((name) =>
          name.startsWith('@') ? readdirSync(join(fresh, 'node_modules', name)).map((inner) => `${name}/${inner}`) : [name],
        )
        .filter((name) => !name.startsWith('.'))
        .map((name) => ({ name, mb: installedTree(join(fresh, 'node_modules', name)).bytes / 1e6 }))
        .sort((a, b) => b.mb - a.mb);
      assert.ok(
        mb <= INSTALL_GOAL_MB,
        `npm install of the package adds ${mb.toFixed(1)} MB, over ${INSTALL_GOAL_MB} MB; the largest: ${top
          .slice(0, 6)
          .map((p) => `${p.name} ${p.mb.toFixed(1)} MB`)
          .join(', ')}`,
      );
      const names = new Set(freshTree.packages.map((folder) => folder.replace(/^.*node_modules\//, '')));
      assert.ok(names.has(pkg.name), `${pkg.name} is installed`);
      for (const peer of Object.keys(pkg.peerDependencies))
        assert.ok(!names.has(peer), `${peer}, an optional peer dependency, was installed`);
      figure('install-packages', freshTree.packages.length);
      figure('install-mb', mb);
      figure('swagger-ui-mb', top.find((p) => p.name === 'swagger-ui-dist')?.mb ?? 0);
    });

    it('npx goods-mock serves the bundled orders and the dashboard with its API reference (no peer needed)', async () => {
      const { child, url } = await startMock(fresh);
      try {
        assert.deepEqual(await orderAnswer(url, 'ORD-2026-0001'), { status: 200, orderNumber: 'ORD-2026-0001' });
        for (const path of ['/__mock/', '/__mock/assets/swagger-ui-bundle.js', '/__mock/openapi.json']) {
          const answer = await fetch(`${url}${path}`);
          assert.equal(answer.status, 200, `${path} answered ${answer.status}`);
          await answer.arrayBuffer();
        }
      } finally {
        await child.stop();
      }
    });

    it('npx goods-conformance stops at once with one line: what it needs, and the command that installs it (exit 2)', async () => {
      const { code, output } = await run(fresh, 'npx', ['--no', '--', 'goods-conformance', '--level', 'strict']);
      assert.equal(code, 2, output);
      assert.equal(
        output.trim(),
        `goods-conformance: the conformance suite needs ${SUITE_PEERS.join(' and ')}, ${SUITE_PEERS.length === 1 ? 'an optional peer dependency' : 'optional peer dependencies'} of ${pkg.name} not installed with it; install ${SUITE_PEERS.length === 1 ? 'it' : 'them'}: npm install -D ${SUITE_PEER_SPECS.join(' ')}`,
      );
    });

    it('npx goods-mock --contract with an operation only Prism answers stops with one line naming the command that installs Prism (exit 1)', async () => {
      const contract = readContract() as Record<string, unknown> & { paths: Record<string, unknown> };
      contract.paths['/goodsReception/rest/v1/added-by-test'] = {
        get: { operationId: 'addedByTest', responses: { '200': { description: 'OK', content: { 'application/json': { example: {} } } } } },
      };
      writeFileSync(join(fresh, 'with-added-operation.json'), JSON.stringify(contract));
      const { code, output } = await run(fresh, 'npx', [
        '--no',
        '--',
        'goods-mock',
        '--port',
        '0',
        '--contract',
        'with-added-operation.json',
      ]);
      assert.equal(code, 1, output);
      assert.equal(
        output.trim(),
        `goods-mock: cannot start: the mock answers addedByTest (an operation without a resource role) with Prism, so it needs ${PRISM_PACKAGE}, an optional peer dependency of ${pkg.name} not installed with it: npm install -D ${PRISM_PACKAGE}@${pkg.devDependencies[PRISM_PACKAGE] ?? ''}`,
      );
    });
  });

  describe("docs/client.md's example, compiled as written in a project made with npm init -y", function () {
    this.timeout(300_000);
    const page = readFileSync(join(PROJECT_ROOT, 'docs', 'client.md'), 'utf8');
    const example = fencedBlocks(page, 'ts')[0] ?? '';
    /** The page's setup commands, without their comments. */
    const commands = (fencedBlocks(page, 'sh')[0] ?? '')
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter(Boolean);
    let asMade: Finished | undefined;

    before(async () => {
      assert.deepEqual(commands, ['npm pkg set type=module', 'npx tsc --init'], 'the setup commands this test runs');
      await mustRun(fresh, 'npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', `typescript@${TYPESCRIPT_VERSION}`], 300_000);
      writeFileSync(join(fresh, 'example.ts'), example);
      // The project as npm init made it, with the tsconfig tsc --init writes (the page's second command).
      await mustRun(fresh, 'sh', ['-c', commands[1] ?? '']);
      asMade = await run(fresh, 'npx', ['--no', '--', 'tsc', '--noEmit']);
    });

    it('fails in the project as npm init makes it (CommonJS), as the page says: TS1295, TS1309', () => {
      assert.ok(example.includes("from 'goods-contract-harness/client'") && example.includes('isValidationProblem('), 'the example');
      assert.notEqual(asMade?.code, 0, asMade?.output);
      assert.match(asMade?.output ?? '', /error TS1295:/);
      assert.match(asMade?.output ?? '', /error TS1309:/);
    });

    it('compiles (tsc --noEmit exits 0) after the command the page gives for an existing project', async () => {
      await mustRun(fresh, 'sh', ['-c', commands[0] ?? '']);
      const { code, output } = await run(fresh, 'npx', ['--no', '--', 'tsc', '--noEmit']);
      assert.equal(code, 0, `the example of docs/client.md in ${fresh} does not compile:\n${output}`);
    });
  });

  describe('npx goods-mock, from the project folder', () => {
    it('--port 0 answers a bundled fixture order (found in the package, not in the current folder) and serves its dashboard', async () => {
      assert.ok(!existsSync(join(project, 'fixtures')), 'the project has no fixtures folder of its own');
      const { child, url } = await startMock(project);
      try {
        assert.deepEqual(await orderAnswer(url, 'ORD-2026-0001'), { status: 200, orderNumber: 'ORD-2026-0001' });
        const page = await fetch(`${url}/__mock/`);
        assert.equal(page.status, 200);
        const assets = [...(await page.text()).matchAll(/(?:src|href)="(\/__mock\/[^"]+)"/g)].map((match) => match[1] ?? '');
        assert.ok(assets.length >= 2, 'the dashboard page links its assets');
        for (const path of [...assets, '/__mock/openapi.json']) {
          const answer = await fetch(`${url}${path}`);
          assert.equal(answer.status, 200, `${path} answered ${answer.status}`);
          await answer.arrayBuffer();
        }
      } finally {
        await child.stop();
      }
    });

    it('--fixtures ./my-orders serves the project folder (resolved from the current folder), and only it', async () => {
      const { child, url } = await startMock(project, ['--fixtures', './my-orders']);
      try {
        assert.deepEqual(await orderAnswer(url, MY_ORDER), { status: 200, orderNumber: MY_ORDER });
        assert.equal((await orderAnswer(url, 'ORD-2026-0001')).status, 404);
      } finally {
        await child.stop();
      }
    });
  });

  describe('npx goods-conformance compat, from the project folder', () => {
    it('compares two contract files of the project, proves the verdict on its own fixtures and writes compat.md (exit 1: breaking)', async () => {
      const pair = pairNamed('a request bound narrowed (a maximum added)');
      writeFileSync(join(project, 'api-v1.json'), JSON.stringify(editedContract(pair.old), null, 2));
      writeFileSync(join(project, 'api-v2.json'), JSON.stringify(editedContract(pair.new), null, 2));
      const { code, output } = await run(project, 'npx', [
        '--no',
        '--',
        'goods-conformance',
        'compat',
        'api-v1.json',
        'api-v2.json',
        '--prove',
        '--fixtures',
        './my-orders',
        '--reporter',
        'markdown',
        '--output',
        './compat-reports',
      ]);
      assert.equal(code, 1, output);
      assert.match(output, /no disagreement/);
      assert.match(readFileSync(join(project, 'compat-reports', 'compat.md'), 'utf8'), /^## Contract compatibility: breaking for clients/);
    });
  });

  describe('npx goods-team-mock, from the project folder (the team mock recipe, docs/team-mock-recipe.md)', () => {
    it("serves the project's orders from two replicas on one Redis, and SIGTERM to npx alone stops every process it started", async function () {
      if (!redisAvailable()) this.skip();
      const team = startChild(
        'goods-team-mock',
        { command: 'npx', args: ['--no', '--', 'goods-team-mock', '--ports', '0,0', '--', '--quiet', '--fixtures', './my-orders'] },
        { cwd: project, env: userEnv() },
      );
      mocks.add(team);
      try {
        await waitForLine(team, /^goods-team-mock: ready: /, 60_000);
        const out = team.stdout();
        const urls = [...out.matchAll(/^goods-team-mock: replica \d+ (http:\/\/\S+) \(pid \d+\)$/gm)].map((m) => m[1] ?? '');
        const pids = [...out.matchAll(/^goods-team-mock: (?:Redis|replica \d+) \S+ \(pid (\d+)\)/gm)].map((m) => Number(m[1]));
        assert.equal(urls.length, 2, out);
        assert.equal(pids.length, 3, out);
        for (const url of urls) assert.deepEqual(await orderAnswer(url, MY_ORDER), { status: 200, orderNumber: MY_ORDER });
        const teamPid = Number(/SIGTERM to pid (\d+)\)/.exec(out)?.[1]);
        // To npx only, as `kill <pid of npx>` does: npm passes it to the shell it runs the bin in, which ends
        // without passing it on, and npm ends by the signal; the team sees that its parent ended and stops.
        team.process.kill('SIGTERM');
        await team.exited;
        const stopped = /goods-team-mock: stopped replica 1 \(pid \d+\), replica 2 \(pid \d+\), redis \(pid \d+\); removed /;
        const left = () => [teamPid, ...pids].filter((pid) => existsSync(`/proc/${pid}`));
        await until(() => left().length === 0 && stopped.test(team.stderr()), {
          what: `the team, Redis and the replicas gone (left: ${JSON.stringify(left())})`,
          timeoutMs: 30_000,
          intervalMs: 100,
        });
      } finally {
        await team.stop();
      }
    });
  });

  describe('npx goods-conformance against that mock', () => {
    let mock: { child: Child; url: string } | undefined;
    before(async () => {
      // The suite sends tokens derived from its own (a prefix, another letter case) that must be refused: the mock
      // accepts only the one token (by default it accepts any, for frontend development).
      mock = await startMock(project, ['--fixtures', './my-orders', '--token', 'dev-token']);
    });
    after(async () => {
      await mock?.child.stop();
    });

    const conformance = (orderNumber: string, extra: string[] = []) =>
      run(project, 'npx', [
        '--no',
        '--',
        'goods-conformance',
        '--base-url',
        mock?.url ?? '',
        '--token',
        'dev-token',
        '--order-number',
        orderNumber,
        '--level',
        'strict',
        ...extra,
      ]);

    it('passes at strict (exit 0) and writes its report into the project folder (--output from the current folder)', async () => {
      const { code, output } = await conformance(MY_ORDER, ['--reporter', 'junit', '--output', './conformance-reports']);
      assert.equal(code, 0, output);
      const reports = join(project, 'conformance-reports');
      assert.ok(existsSync(reports) && readdirSync(reports).length > 0, `no report in ${reports}`);
    });

    describe("the reusable workflow's shell steps (.github/workflows/conformance.yml), run with bash as a runner runs them", function () {
      this.timeout(300_000); // the install step installs the package a second time, as a runner would
      const runSteps = async (workspace: string, context: Record<string, string>) => {
        mkdirSync(workspace, { recursive: true });
        const outputs: { name: string; code: number | null; output: string }[] = [];
        for (const step of workflowSteps()) {
          if (step.run === undefined) continue;
          const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([key, value]) => [key, evaluate(value, context)]));
          const result = await run(workspace, 'bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], 300_000, env);
          outputs.push({ name: step.name ?? '', ...result });
          if (result.code !== 0) break;
        }
        return outputs;
      };
      const contextFor = (runnerTemp: string, harnessPackage: string): Record<string, string> => ({
        'inputs.harness-package': harnessPackage,
        'inputs.base-url': mock?.url ?? '',
        'inputs.order-number': MY_ORDER,
        'inputs.level': 'strict',
        'inputs.read-only': 'false',
        'inputs.contract': '',
        'secrets.token': 'dev-token',
        'runner.temp': runnerTemp,
      });

      it('installs the harness from the package spec (the tarball), runs the suite at strict (exit 0) and writes the reports the upload step takes', async () => {
        const tarball = readdirSync(work).find((name) => name.endsWith('.tgz')) ?? '';
        const workspace = join(work, 'workflow', 'workspace');
        const outputs = await runSteps(workspace, contextFor(join(work, 'workflow', 'temp'), join(work, tarball)));
        assert.ok(outputs.length >= 2, 'the workflow has an install step and a suite step');
        for (const { name, code, output } of outputs) assert.equal(code, 0, `step "${name}" exited ${code}:\n${output}`);
        const upload = workflowSteps().find((step) => step.uses?.startsWith('actions/upload-artifact@'));
        const paths = (upload?.with?.['path'] ?? '')
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean);
        assert.ok(paths.length > 0, 'the upload step names its files');
        for (const path of paths) assert.ok(existsSync(join(workspace, path)), `${path} (uploaded by the workflow) was not written`);
      });

      it('stops with an ::error:: (exit 2) when the package spec installs some other package', async () => {
        const other = join(work, 'not-the-harness');
        mkdirSync(other, { recursive: true });
        writeFileSync(join(other, 'package.json'), `${JSON.stringify({ name: 'not-the-harness', version: '1.0.0' })}\n`);
        const outputs = await runSteps(join(work, 'wrong', 'workspace'), contextFor(join(work, 'wrong', 'temp'), other));
        assert.equal(outputs.length, 1, 'nothing runs after the failed install step');
        assert.equal(outputs[0]?.code, 2, outputs[0]?.output);
        assert.match(outputs[0]?.output ?? '', /::error::harness-package ".*not-the-harness" did not install goods-contract-harness/);
      });
    });

    it('fails (non-zero exit) for an order the mock does not have, so exit 0 above is a verdict', async () => {
      const { code, output } = await conformance('NOT-IN-MY-ORDERS-1');
      assert.notEqual(code, 0, output);
      assert.notEqual(code, null, output);
    });
  });

  describe("goods-contract-harness/client under the project's own TypeScript", () => {
    before(() => {
      typeChecks = startTypeChecks(project);
    });

    it('a file that imports the client and uses its types type-checks (tsc --noEmit exits 0)', async () => {
      assert.ok(typeChecks, 'the type checks were started');
      const { code, output } = await typeChecks.uses;
      assert.equal(code, 0, `\`tsc --noEmit -p tsconfig.json\` in ${project} exited ${code}:\n${output}`);
    });

    it('a wrong use of its types is refused (tsc exits non-zero naming each mistake)', async () => {
      assert.ok(typeChecks, 'the type checks were started');
      const { code, output } = await typeChecks.misuses;
      assert.notEqual(code, 0, output);
      assert.match(
        output,
        /misuses-client\.ts\(7,\d+\): error TS2322: Type 'string \| undefined' is not assignable to type 'number \| undefined'/,
      );
      assert.match(output, /misuses-client\.ts\(11,\d+\): error TS2322: [^\n]*\n\s+Property 'amount' is missing/);
      assert.doesNotMatch(output, /TS2307|TS7016/, 'the module and its declarations are found');
    });
  });

  it('an ESM script imports createMockServer from goods-contract-harness/mock, starts a mock on the project fixtures, gets an order, stops it', async () => {
    writeFileSync(
      join(project, 'start-stop.mjs'),
      [
        "import { createMockServer } from 'goods-contract-harness/mock';",
        "import { CONTRACT_JSON_PATH } from 'goods-contract-harness';",
        '',
        "const server = await createMockServer({ port: 0, quiet: true, fixturesDir: 'my-orders' });",
        `const answer = await fetch(\`\${server.url}${ORDER_PATH}${MY_ORDER}\`, { headers: { authorization: 'Bearer t' } });`,
        'const body = await answer.json();',
        'console.log(`answered ${answer.status} ${body.order.orderNumber}`);',
        'await server.close();',
        "console.log('stopped');",
        'console.log(`contract ${CONTRACT_JSON_PATH}`);',
        '',
      ].join('\n'),
    );
    // The process ends by itself only when the closed mock holds nothing open.
    const output = await mustRun(project, process.execPath, ['start-stop.mjs'], 60_000);
    assert.match(output, new RegExp(`^answered 200 ${MY_ORDER}$`, 'm'));
    assert.match(output, /^stopped$/m);
    const contract = /^contract (.+)$/m.exec(output)?.[1] ?? '';
    assert.equal(
      contract,
      join(installed, 'contract', 'generated', 'openapi.json'),
      'the bundled contract is read from the installed package',
    );
  });
});
