/**
 * The store in words, for people: the start-up banner names it (`Store: Redis redis://127.0.0.1:6379/0,
 * key prefix goods-mock`), and every message of the Redis store names its Redis the same way. A password
 * (or user) in the URL is never shown: the one redactor hides it (`redis://<redacted>@host:6379/0`).
 */
import { REDACTED } from '../../redaction/positions.js';
import { createRedactor, userinfoSecrets } from '../../redaction/redactor.js';

/** What names the store in the configuration (`--store`, `--store-prefix`, `--state-file`). */
export interface StoreChoice {
  store?: string;
  storePrefix: string;
  stateFile?: string;
}

/** The Redis URL for messages, credentials replaced (`redis://<redacted>@127.0.0.1:6379/0`). */
export function displayUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'redis://(unparsable URL)';
  }
  const credentials = parsed.username !== '' || parsed.password !== '' ? `${REDACTED}@` : '';
  return createRedactor(userinfoSecrets(url)).redact(`${parsed.protocol}//${credentials}${parsed.host}${parsed.pathname}`);
}

/** The store a configuration opens, in one line (the banner's `Store:`). */
export function describeStore(choice: StoreChoice): string {
  if (choice.store !== undefined) return `Redis ${displayUrl(choice.store)}, key prefix ${choice.storePrefix}`;
  if (choice.stateFile !== undefined) return `journal ${choice.stateFile} (in memory, every change written to the file before its answer)`;
  return 'memory (lost when the mock stops; --state-file FILE keeps it)';
}
