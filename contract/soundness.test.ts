import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { readContract, type JsonObject } from './document.js';
import { compileContract } from './schemas.js';
import { assertSound, ContractProblem } from './soundness.js';

/** The bundled contract with `schemas` added to its component schemas. */
function withSchemas(schemas: JsonObject): JsonObject {
  const document = structuredClone(readContract());
  const components = document['components'] as { schemas: JsonObject };
  Object.assign(components.schemas, schemas);
  return document;
}

const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

function problemOf(document: unknown): string {
  try {
    assertSound(document as JsonObject, 'the contract x.yaml');
  } catch (error) {
    assert.ok(error instanceof ContractProblem, String(error));
    assert.doesNotMatch(error.message, /\n/, 'one line');
    return error.message;
  }
  return 'sound';
}

describe('contract soundness (contract/soundness.ts)', () => {
  it('the bundled contract is sound', () => {
    assert.equal(problemOf(readContract()), 'sound');
  });

  it('refuses a $ref cycle that never descends into the value, naming the chain', () => {
    assert.equal(
      problemOf(withSchemas({ Self: ref('Self') })),
      'the contract x.yaml has a $ref cycle that never reaches a schema: #/components/schemas/Self → #/components/schemas/Self; a schema may refer to itself only below properties or items (a tree whose children are nodes), so break the cycle there',
    );
    assert.match(
      problemOf(withSchemas({ A: ref('B'), B: ref('C'), C: ref('A') })),
      /cycle that never reaches a schema: #\/components\/schemas\/A → #\/components\/schemas\/B → #\/components\/schemas\/C → #\/components\/schemas\/A;/,
    );
    assert.match(
      problemOf(withSchemas({ A: { allOf: [{ type: 'object' }, ref('B')] }, B: { anyOf: [ref('A')] } })),
      /#\/components\/schemas\/A → #\/components\/schemas\/A\/allOf\/1 → #\/components\/schemas\/B → #\/components\/schemas\/B\/anyOf\/0 → #\/components\/schemas\/A;/,
    );
    for (const keyword of ['not', 'if', 'then', 'else'])
      assert.match(problemOf(withSchemas({ A: { [keyword]: ref('A') } })), new RegExp(`schemas/A/${keyword} → #/components/schemas/A;`));
    // Not only schemas: a chain of responses that refer to each other.
    const responses = withSchemas({});
    (responses['components'] as JsonObject)['responses'] = {
      R1: { $ref: '#/components/responses/R2' },
      R2: { $ref: '#/components/responses/R1' },
    };
    assert.match(problemOf(responses), /#\/components\/responses\/R1 → #\/components\/responses\/R2 → #\/components\/responses\/R1/);
  });

  it('accepts recursion that descends into the value (a tree whose children are nodes), and compiles it', () => {
    const node = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        children: { type: 'array', items: ref('Node') },
        left: ref('Node'),
        named: { type: 'object', additionalProperties: ref('Node') },
      },
    };
    const document = withSchemas({ Node: node, Wrapped: { allOf: [ref('Node')] } });
    assert.equal(problemOf(document), 'sound');
    const validate = compileContract(document, 'strict').validator(ref('Wrapped'));
    assert.deepEqual(validate({ name: 'root', children: [{ name: 'a', left: { children: [] } }] }), []);
    assert.deepEqual(validate({ children: [{ left: { name: 1 } }] }), [
      { pointer: '/children/0/left/name', detail: 'must be of type string' },
    ]);
  });

  it('refuses a document that contains itself (a YAML alias inside its own anchor), naming where', () => {
    const document = withSchemas({});
    const looped = parse('type: object\nproperties:\n  self: &x\n    type: object\n    properties:\n      again: *x\n') as JsonObject;
    (document['components'] as { schemas: JsonObject }).schemas['Looped'] = looped;
    assert.match(
      problemOf(document),
      /^the contract x\.yaml contains itself at #\/components\/schemas\/Looped\/properties\/self\/properties\/again \(a YAML alias/,
    );
  });

  it('refuses a pattern without a linear-time match, naming its JSON Pointer; reads patterns only where schemas stand', () => {
    const document = withSchemas({
      Look: { type: 'string', pattern: '^(?=S)[A-Z]+$' },
      Keys: { type: 'object', patternProperties: { '(a)\\1': { type: 'string' } } },
      // Data, not schemas: an example, a default, an extension, and a member named "pattern".
      Data: {
        type: 'object',
        properties: { pattern: { type: 'string' } },
        example: { pattern: '(?=x)' },
        default: { pattern: '(?=x)' },
        'x-note': { pattern: '(?=x)' },
      },
    });
    assert.equal(
      problemOf(document),
      'the contract x.yaml has 2 patterns that cannot be matched in linear time (RE2, so that no value can freeze a validator): ' +
        'the pattern "^(?=S)[A-Z]+$" at #/components/schemas/Look/pattern: it uses a lookahead "(?=...)", which RE2 does not evaluate; express it without lookaround and backreferences; ' +
        'the pattern "(a)\\\\1" at #/components/schemas/Keys/patternProperties/(a)\\1: it uses a backreference "\\N", which RE2 does not evaluate; express it without lookaround and backreferences',
    );
  });

  it('compileContract checks a document built in memory (a document read from a file was checked there)', () => {
    assert.throws(() => compileContract(withSchemas({ Self: ref('Self') }), 'spec'), ContractProblem);
  });
});
