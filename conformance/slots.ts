/**
 * A counting semaphore: at most `size` holders at once; waiters are served first come, first served.
 * The HTTP client holds one slot per request in flight (`--concurrency`).
 */
export class Slots {
  private held = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`slots: size must be a whole number ≥ 1, got ${size}`);
  }

  /** Waits for a free slot; the function it resolves to gives it back (calling it again does nothing). */
  async acquire(): Promise<() => void> {
    if (this.held < this.size) this.held++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter (the count stays), or is freed.
      if (next) next();
      else this.held--;
    };
  }
}
