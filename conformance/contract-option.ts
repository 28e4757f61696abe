/**
 * The contract a run judges against: `--contract FILE` (`config.contractPath`, read from the current
 * folder) or the bundled one, read once by the loader the mock and the proxy share
 * (`readContractFile`, contract/document.ts), which also hashes the bytes read; or a document handed to
 * `runConformance` as an object. A contract that cannot be read, parsed, is not OpenAPI 3.1, cannot be
 * used (a `$ref` cycle, a pattern without a linear-time match: `contract/soundness.ts`; a malformed
 * extension: `contract/extensions.ts`) or does not state what the checks need (the operations model
 * cannot be derived) is a StartError (exit 2).
 */
import { resolve } from 'node:path';
import { readContractFile, sha256Hex, type ContractFile, type OpenApiDocument } from '../contract/document.js';
import { ExtensionError } from '../contract/extensions.js';
import { ContractProblem } from '../contract/soundness.js';
import { messageOf } from '../util/errors.js';
import { CONTRACT_JSON_PATH, shownPath } from '../contract/paths.js';
import { judgeContexts } from '../judgments/context.js';
import { IN_MEMORY_CONTRACT, type JudgedContract } from '../report/results.js';
import { StartError } from './start-error.js';
import { BUNDLED_FILE } from './checks/helpers.js';

export interface RunContract {
  document: OpenApiDocument;
  /** What the reports name: the file (or `(in memory)`) and the SHA-256 of what was read. */
  judged: JudgedContract;
}

const LEAVE_OUT = 'or leave --contract out to use the bundled contract';

/**
 * The operations model and the compiled contract of both levels can be built (`judgeContexts` caches
 * them per document, so the run's CheckContext gets these very ones); else a StartError naming what
 * the contract lacks.
 */
function usable(document: OpenApiDocument, shown: string, given: boolean): void {
  try {
    judgeContexts(document);
  } catch (error) {
    throw new StartError(
      `cannot judge against the contract ${shown}: ${messageOf(error)}`,
      // A malformed value is corrected where the message points; a missing fact is added.
      error instanceof ContractProblem || error instanceof ExtensionError
        ? `correct the contract there${given ? `, ${LEAVE_OUT}` : ''}`
        : `add it to the contract (the package's contract/openapi.yaml shows the form)${given ? `, ${LEAVE_OUT}` : ''}`,
      { cause: error },
    );
  }
}

/** Reads `contractPath` (relative: from the current folder), or the bundled contract when it is absent. */
export function loadContract(contractPath: string | undefined): RunContract {
  const given = contractPath !== undefined;
  const path = resolve(contractPath ?? CONTRACT_JSON_PATH);
  let file: ContractFile;
  try {
    file = given ? readContractFile(path) : BUNDLED_FILE;
  } catch (error) {
    // A contract read but unusable (a $ref cycle, a pattern without a linear-time match) says where and how to fix it.
    const fix =
      error instanceof ContractProblem
        ? `correct the contract there${given ? `, ${LEAVE_OUT}` : ''}`
        : `pass --contract with a readable OpenAPI 3.1 contract (.yaml or .json), ${LEAVE_OUT}`;
    throw new StartError(
      messageOf(error),
      given || error instanceof ContractProblem
        ? fix
        : 'the bundled contract is missing or broken: reinstall the package, or pass --contract FILE',
      { cause: error },
    );
  }
  const shown = shownPath(path);
  usable(file.document, shown, given);
  return { document: file.document, judged: { path: shown, sha256: file.sha256 } };
}

/** A document handed over as an object: named `(in memory)`, hashed as `JSON.stringify(document)`. */
export function inMemoryContract(document: OpenApiDocument): RunContract {
  usable(document, IN_MEMORY_CONTRACT, false);
  return { document, judged: { path: IN_MEMORY_CONTRACT, sha256: sha256Hex(JSON.stringify(document)) } };
}
