/**
 * Contract facts live in one place: outside `contract/` (its generated files and
 * the tests aside) no code types an API path, an operationId or a member name of the contract; it reads
 * them from the operations model. What counts, read from the contract itself (so a new path or member
 * is covered with no change here):
 * - a string literal (or a part of a template literal) equal to an operationId;
 * - one containing a path of the contract (up to its first parameter);
 * - an object literal's key equal to an operationId (`{ getOrderInfo: ... }`);
 * - one equal to a member name of a schema that cannot be told from an ordinary word: a name with an
 *   underscore or an upper-case letter (`fk_lot_id`, `orderNumber`). Plain lower-case names (`id`,
 *   `status`, `notes`) are also ordinary words (an HTTP status, a record id) and are not checked.
 * - one containing a reference to a component schema of the contract (`#/components/schemas/LotId`);
 * - in the dashboard's browser code (plain JavaScript, no types), a property read with such a name too.
 * (An unquoted object key or a property read in typed code is not checked: the project's own types use
 * some of the same words, e.g. the suite's `orderNumber` option.)
 * The few files allowed to type them are listed with the reason.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { isObject, listOperations, readContract, type JsonValue } from '../contract/document.js';
import { PROJECT_ROOT } from '../contract/paths.js';

/** Files that may type contract facts, and why. */
const ALLOWED: Record<string, string> = {
  'client/goods-client.ts':
    "the typed client: its paths and method names are checked by the compiler against contract/generated/types.ts (openapi-fetch's typed paths)",
};

/** Folders whose code is checked (every TypeScript and JavaScript file but tests and generated files). */
const FOLDERS = ['util', 'judgments', 'redaction', 'report', 'checks', 'mock', 'conformance', 'client', 'bench', 'scripts', 'support'];

interface ContractFacts {
  operationIds: Set<string>;
  paths: string[];
  members: Set<string>;
  /** References to the contract's component schemas (`#/components/schemas/<name>`). */
  schemaRefs: string[];
}

function contractFacts(): ContractFacts {
  const doc = readContract();
  const members = new Set<string>();
  const walk = (value: JsonValue | undefined): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (isObject(value)) {
      const properties = value['properties'];
      if (isObject(properties)) for (const name of Object.keys(properties)) if (/[_A-Z]/.test(name)) members.add(name);
      Object.values(value).forEach(walk);
    }
  };
  walk(doc);
  const operations = listOperations(doc);
  return {
    operationIds: new Set(operations.map((op) => op.operationId)),
    paths: [...new Set(operations.map((op) => op.path.split('{')[0] ?? op.path))].filter((path) => path.length > 1),
    members,
    schemaRefs: Object.keys(isObject(doc['components']) && isObject(doc['components']['schemas']) ? doc['components']['schemas'] : {}).map(
      (name) => `#/components/schemas/${name}`,
    ),
  };
}

function files(): string[] {
  const found: string[] = [];
  for (const folder of FOLDERS) {
    for (const entry of readdirSync(join(PROJECT_ROOT, folder), { withFileTypes: true, recursive: true })) {
      const file = relative(PROJECT_ROOT, join(entry.parentPath, entry.name)).split(sep).join('/');
      // Tests, what only tests use (`testing/` folders: test pairs, hostile servers) and generated files aside.
      if (!entry.isFile() || !/\.(ts|js)$/.test(file) || file.endsWith('.test.ts') || /\/(generated|testing)\//.test(file)) continue;
      found.push(file);
    }
  }
  return found;
}

/** Every contract fact typed in `text` (a file's source), as `file:line what`. */
export function literalsIn(file: string, text: string, facts: ContractFacts): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const browser = file.startsWith('mock/dashboard/');
  const found: string[] = [];
  const at = (node: ts.Node): string => `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
  const visit = (node: ts.Node): void => {
    let texts: string[] = [];
    // A literal type (`Pick<Config, 'orderNumber'>`) names the project's own types, checked by the compiler.
    if (ts.isLiteralTypeNode(node.parent)) texts = [];
    else if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) texts = [node.text];
    else if (ts.isTemplateExpression(node)) texts = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)];
    else if (browser && ts.isPropertyAccessExpression(node) && facts.members.has(node.name.text))
      found.push(`${at(node)} member .${node.name.text}`);
    else if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && facts.operationIds.has(node.name.text))
      found.push(`${at(node)} operationId key ${node.name.text}`);
    for (const value of texts) {
      if (facts.operationIds.has(value)) found.push(`${at(node)} operationId "${value}"`);
      else if (facts.members.has(value)) found.push(`${at(node)} member "${value}"`);
      else {
        const path = facts.paths.find((p) => value.includes(p.replace(/\/$/, '')));
        const ref = facts.schemaRefs.find((r) => value === r || value.startsWith(`${r}/`));
        if (path !== undefined) found.push(`${at(node)} path "${path}"`);
        else if (ref !== undefined) found.push(`${at(node)} schema "${ref}"`);
      }
    }
    ts.forEachChild(node, visit);
  };
  // From the file's statements: every node visited has a parent.
  ts.forEachChild(source, visit);
  return found;
}

describe('architecture: contract facts are typed only in contract/', () => {
  const facts = contractFacts();

  it('reads the facts from the contract (paths, operationIds, distinctive member names)', () => {
    assert.ok(facts.operationIds.size >= 3, [...facts.operationIds].join(', '));
    assert.ok(facts.paths.length >= 3, facts.paths.join(', '));
    assert.ok(facts.members.size >= 5, [...facts.members].join(', '));
    assert.ok(facts.schemaRefs.length >= 5, facts.schemaRefs.join(', '));
    assert.ok(![...facts.members].some((name) => /^[a-z]+$/.test(name)), 'plain lower-case names are not checked');
  });

  it('finds each kind of literal (the check can fail)', () => {
    const [path] = facts.paths;
    const [operationId] = facts.operationIds;
    const [member] = facts.members;
    const text = `const a = '${operationId ?? ''}';\nconst b = \`\${base}${path ?? ''}x\`;\nconst c = { ['${member ?? ''}']: 1 };\nconst d = 'status';\nconst e = { ${operationId ?? ''}: 1 };\nconst f = '${facts.schemaRefs[0] ?? ''}';`;
    assert.equal(literalsIn('mock/x.ts', text, facts).length, 5, literalsIn('mock/x.ts', text, facts).join('\n'));
    assert.deepEqual(literalsIn('mock/dashboard/app.js', `row.${member ?? ''}`, facts), [
      `mock/dashboard/app.js:1 member .${member ?? ''}`,
    ]);
    assert.deepEqual(literalsIn('mock/x.ts', `row.${member ?? ''}`, facts), [], 'typed code reads members through its types');
  });

  it('no file outside contract/ (tests and generated files aside) types an API path, an operationId or a member name', () => {
    const found = files()
      .filter((file) => ALLOWED[file] === undefined)
      .flatMap((file) => literalsIn(file, readFileSync(join(PROJECT_ROOT, file), 'utf8'), facts));
    assert.deepEqual(found, [], 'read these from the operations model (contract/operations-model.ts) instead');
  });

  it('every allowed file exists and still types a fact (no stale exception)', () => {
    for (const file of Object.keys(ALLOWED))
      assert.ok(literalsIn(file, readFileSync(join(PROJECT_ROOT, file), 'utf8'), facts).length > 0, `${file}: remove it from ALLOWED`);
  });
});
