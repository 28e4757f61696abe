import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';
import { lintWith, projectProgram, typeErrors } from './lint-and-types.js';

describe('npm run lint: one TypeScript program for the type check and the typed lint', function () {
  this.timeout(120_000);
  let dir = '';

  before(() => {
    // A small project with the repository's ESLint configuration and compiler options.
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'goods-lint-')));
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    copyFileSync(join(PROJECT_ROOT, 'eslint.config.js'), join(dir, 'eslint.config.js'));
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', types: ['node'] },
        include: ['src'],
      }),
    );
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Makes `source` the project's one file. */
  const write = (source: string): void => {
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'src', 'index.ts'), source);
  };

  it('a clean project: no type error, no lint message', async () => {
    write('export function answer(): Promise<number> {\n  return Promise.resolve(42);\n}\nexport const value: number = await answer();\n');
    const program = projectProgram(dir);
    assert.equal(typeErrors(program, dir), '');
    const results = await lintWith(program, ['.'], dir);
    assert.deepEqual(
      results.flatMap((result) => result.messages.map((message) => message.message)),
      [],
    );
  });

  it('a type error is reported as tsc reports it, and a floating promise by the typed rule (both can fail)', async () => {
    write('async function later(): Promise<void> {}\nlater();\nexport const count: number = "three";\n');
    const program = projectProgram(dir);
    assert.match(
      typeErrors(program, dir),
      /src\/index\.ts\(3,14\): error TS2322: Type 'string' is not assignable to type 'number'\.\n[\s\S]*Found 1 error \(TypeScript\)/,
    );
    const results = await lintWith(program, ['.'], dir);
    assert.deepEqual(
      results.flatMap((result) => result.messages.map((message) => message.ruleId)),
      ['@typescript-eslint/no-floating-promises'],
    );
  });
});
