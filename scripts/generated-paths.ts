import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';

/** TypeScript types generated from the contract. */
export const TYPES_PATH = join(PROJECT_ROOT, 'contract', 'generated', 'types.ts');
