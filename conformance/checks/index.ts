/**
 * THE list of checks. Every check the suite runs is registered here, once; the runner runs each
 * one whose level is within the chosen level, and the suite's own tests require a fault case for
 * each of them.
 */
import { authChecks } from './auth.js';
import { createChecks } from './create.js';
import { orderInfoChecks } from './order-info.js';
import { requestErrorChecks } from './request-errors.js';
import { serverChecks } from './server.js';
import type { Check } from './types.js';

export type { Check } from './types.js';

export const CHECKS: readonly Check[] = [...orderInfoChecks, ...authChecks, ...createChecks, ...requestErrorChecks, ...serverChecks];
