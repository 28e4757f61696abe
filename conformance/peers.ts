/**
 * The conformance suite's optional peer dependency (util/peer.ts): mocha runs the checks. A run, the self-test and a compat proof ask for them before anything starts;
 * when one is missing the command stops with the line that installs them (exit 2).
 */
import { MissingPeersError, requirePeers } from '../util/peer.js';
import { StartError } from './start-error.js';

export const SUITE_PEERS = ['mocha'] as const;

/** Throws a StartError naming the install command when mocha (`names`) is not installed. */
export function checkSuitePeers(names: readonly string[] = SUITE_PEERS): void {
  try {
    requirePeers(names, 'the conformance suite');
  } catch (error) {
    if (error instanceof MissingPeersError)
      throw new StartError(error.reason, `install ${error.missing.length === 1 ? 'it' : 'them'}: ${error.install}`);
    throw error;
  }
}
