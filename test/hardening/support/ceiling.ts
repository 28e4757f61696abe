/**
 * The stated ceiling of the mock's peak resident memory (VmHWM) under every flood with the default
 * limits (128 MiB of recorded JSON, 32 MiB of bodies and 96 MiB of answers held, 1,024 connections);
 * see docs/mock.md, "Limits".
 */
export const RSS_CEILING = 512 * 1024 * 1024;
