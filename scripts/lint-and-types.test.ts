import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';
import { lintWith, projectProgram, typeErrors } from './lint-and-types.js';

describe('npm run lint: one TypeScript program for the type check and the typed lint', function () {
  this.timeout(120_000);
  let dir = '';

  before(() => {
    // A small project under the repository's ESLint configuration.
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'goods-lint-')));
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    copyFileSync(join(PROJECT_ROOT, 'eslint.config.js'), join(dir, 'eslint.config.js'));
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', types: [] },
        include: ['src'],
      }),
    );
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reports a type error as tsc does and a floating promise by the typed rule, and nothing in a clean file (both can fail)', async () => {
    mkdirSync(join(dir, 'src'));
    writeFileSync(
      join(dir, 'src', 'clean.ts'),
      'export function answer(): Promise<number> {\n  return Promise.resolve(42);\n}\nexport const value: number = await answer();\n',
    );
    writeFileSync(
      join(dir, 'src', 'broken.ts'),
      'async function later(): Promise<void> {}\nlater();\nexport const count: number = "three";\n',
    );
    const program = projectProgram(dir);
    const types = typeErrors(program, dir);
    assert.match(
      types,
      /src\/broken\.ts\(3,14\): error TS2322: Type 'string' is not assignable to type 'number'\.\n[\s\S]*Found 1 error \(TypeScript\)/,
    );
    assert.doesNotMatch(types, /clean\.ts/);
    const results = await lintWith(program, ['.'], dir);
    const messages = results.flatMap((result) =>
      result.messages.map((message) => `${relative(dir, result.filePath)}: ${message.ruleId ?? message.message}`),
    );
    assert.deepEqual(messages, [`${join('src', 'broken.ts')}: @typescript-eslint/no-floating-promises`]);
  });
});
