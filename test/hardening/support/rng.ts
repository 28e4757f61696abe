/**
 * A small seeded pseudo-random generator (mulberry32), so a corpus is reproduced exactly from its
 * seed. The seed is fixed by default; `HARDENING_SEED` overrides it.
 */
export const DEFAULT_SEED = 20261121;

/** The seed for this run: `HARDENING_SEED` (an integer) or the default. */
export function hardeningSeed(env: Record<string, string | undefined> = process.env): number {
  const raw = env['HARDENING_SEED'];
  if (raw === undefined || raw === '') return DEFAULT_SEED;
  if (!/^\d{1,10}$/.test(raw)) throw new Error(`HARDENING_SEED must be a whole number, not "${raw}"`);
  return Number(raw) >>> 0;
}

export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.int(0, items.length - 1)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  bytes(length: number): Buffer {
    const out = Buffer.alloc(length);
    for (let i = 0; i < length; i++) out[i] = this.int(0, 255);
    return out;
  }

  /** A string of `length` characters drawn from `alphabet`. */
  text(length: number, alphabet: string): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[this.int(0, alphabet.length - 1)] ?? '';
    return out;
  }
}
