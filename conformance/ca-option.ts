/**
 * `--ca FILE`: a PEM bundle of certificates trusted for the run's https:// requests besides Node's
 * bundled CAs (a company's private CA, or a server's self-signed certificate). Read once, from the
 * current folder, before anything is sent; a file that cannot be read or holds no valid certificate is
 * a StartError (exit 2). The suite offers no switch that turns verification off.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { codeOf, messageOf } from '../util/errors.js';
import { shownPath } from '../contract/paths.js';
import { StartError } from './start-error.js';

export interface TrustedCa {
  /** The file as shown (relative to the current folder when inside it). */
  path: string;
  /** Each certificate of the file, PEM. */
  certificates: string[];
}

const PEM = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
const FIX = 'pass --ca with a PEM file of the CA certificates to trust (-----BEGIN CERTIFICATE----- blocks)';

/** Reads `--ca FILE` (relative: from the current folder). */
export function loadCa(caPath: string): TrustedCa {
  const path = resolve(caPath);
  const shown = shownPath(path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new StartError(`cannot read --ca ${shown}: ${codeOf(error) ?? messageOf(error)}`, FIX);
  }
  const certificates = text.match(PEM) ?? [];
  if (certificates.length === 0) throw new StartError(`--ca ${shown} holds no PEM certificate`, FIX);
  certificates.forEach((pem, index) => {
    try {
      new X509Certificate(pem);
    } catch (error) {
      throw new StartError(`--ca ${shown}: certificate ${index + 1} of ${certificates.length} cannot be read (${messageOf(error)})`, FIX);
    }
  });
  return { path: shown, certificates };
}
