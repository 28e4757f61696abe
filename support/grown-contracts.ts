/**
 * Contracts grown the way an API team grows them, for the tests: the bundled contract with the parts of
 * `docs/examples/grown-additions.yaml` merged in (reads, a filtered list, changes, a delete, an action,
 * a new create, an API-key scheme), in variants (without the declared link, with its paths in another
 * order), and the small books API of `docs/examples/books.yaml`. No code of the mock or the suite knows
 * any of them: each is a plain document.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { isObject, readContract, type JsonObject, type OpenApiDocument } from '../contract/document.js';
import { PROJECT_ROOT } from '../contract/paths.js';

const ADDITIONS = join(PROJECT_ROOT, 'docs', 'examples', 'grown-additions.yaml');
export const BOOKS_CONTRACT = join(PROJECT_ROOT, 'docs', 'examples', 'books.yaml');

function objectAt(parent: JsonObject, key: string): JsonObject {
  const value = parent[key];
  if (isObject(value)) return value;
  const made: JsonObject = {};
  parent[key] = made;
  return made;
}

function readYaml(path: string): JsonObject {
  const value: unknown = parse(readFileSync(path, 'utf8'));
  if (!isObject(value)) throw new Error(`${path} is not a YAML object`);
  return value;
}

export interface GrownOptions {
  /** Keep the declared link from the create to the read (default true); without it the read is inferred. */
  links?: boolean;
  /** Write the paths in reverse order (the model must not depend on it). */
  reversed?: boolean;
}

/** The bundled contract grown by `docs/examples/grown-additions.yaml`. */
export function grownContract(options: GrownOptions = {}): OpenApiDocument {
  const doc = structuredClone(readContract());
  const additions = readYaml(ADDITIONS);
  const paths = objectAt(doc, 'paths');
  for (const [path, item] of Object.entries(objectAt(additions, 'paths'))) paths[path] = item;
  const components = objectAt(doc, 'components');
  for (const [kind, entries] of Object.entries(objectAt(additions, 'components')))
    if (isObject(entries)) Object.assign(objectAt(components, kind), entries);
  if (options.links !== false)
    for (const [operationId, responses] of Object.entries(objectAt(additions, 'add-links'))) {
      const operation = Object.values(paths)
        .flatMap((item) => (isObject(item) ? Object.values(item) : []))
        .find((op) => isObject(op) && op['operationId'] === operationId);
      if (!isObject(operation) || !isObject(responses)) throw new Error(`add-links: no operation ${operationId}`);
      for (const [status, links] of Object.entries(responses)) {
        const response = objectAt(objectAt(operation, 'responses'), status);
        if (isObject(links)) Object.assign(objectAt(response, 'links'), links);
      }
    }
  if (options.reversed === true) doc['paths'] = Object.fromEntries(Object.entries(paths).reverse());
  return doc;
}

/** The books API (`docs/examples/books.yaml`). */
export function booksContract(): OpenApiDocument {
  return readYaml(BOOKS_CONTRACT);
}

/** Writes a contract to a JSON file in a new temporary folder (for `--contract`); answers its path. */
export function contractFile(doc: OpenApiDocument, name = 'contract'): string {
  const path = join(mkdtempSync(join(tmpdir(), 'goods-grown-')), `${name}.json`);
  writeFileSync(path, JSON.stringify(doc, null, 2));
  return path;
}
