/**
 * The proxy's judging, off the answer's path: an exchange is queued once its answer was sent whole,
 * and judged later, in batches, each batch in its own turn of the event loop (`setImmediate`), so
 * forwarding never waits for a judgment: the answers and requests that arrived meanwhile are served
 * between two batches. A batch ends after `JUDGING_SLICE_MS` of judging (or `perTurn` exchanges), so
 * no request waits behind a long one; while exchanges pile up, the slice grows with the backlog (up to
 * `(1 + BACKLOG_GROWTH) ×` at a full queue), so judging keeps pace with forwarding rather than dropping. The queue is bounded in exchanges and in the bytes of the bodies they hold;
 * an exchange that does not fit is forwarded but not judged, and counted (`dropped`), so the
 * reports can say how many exchanges they do not cover. `drain()` judges everything waiting at once
 * (before a listing, a report, or on stop, so they cover every exchange answered before them).
 */

export interface JudgingLimits {
  /** Most exchanges waiting to be judged. */
  exchanges: number;
  /** Most bytes of bodies waiting to be judged (each exchange holds at most 2 × `MAX_JUDGED_BYTES`). */
  bytes: number;
}

/** 1,000 exchanges or 64 MiB of bodies: a burst of about a second at full speed, in bounded memory. */
export const DEFAULT_JUDGING_LIMITS: JudgingLimits = { exchanges: 1000, bytes: 64 * 1024 * 1024 };

/** Exchanges judged per turn of the event loop at most. */
export const JUDGED_PER_TURN = 200;

/** Judging time per turn of the event loop (checked after each exchange) while the queue keeps pace. */
export const JUDGING_SLICE_MS = 1;

/** How much longer a turn may judge at a full queue (linear in the share of the queue in use). */
export const BACKLOG_GROWTH = 8;

export interface JudgingQueueOptions<T> {
  limits: JudgingLimits;
  /** Judges one item. */
  judge: (item: T) => void;
  /** What `judge` threw (the queue goes on with the next item). */
  onError: (error: unknown, item: T) => void;
  /** Called with an item that did not fit (after it was counted): the caller counts and logs what it must. */
  onDrop?: (item: T) => void;
  /** Items judged per turn at most (default `JUDGED_PER_TURN`). */
  perTurn?: number;
  /** Judging time per turn before the backlog grows it, ms (default `JUDGING_SLICE_MS`). */
  sliceMs?: number;
  /** The clock, ms (default `performance.now`). */
  now?: () => number;
}

export class JudgingQueue<T> {
  private items: ({ item: T; bytes: number } | undefined)[] = [];
  private head = 0;
  private bytesWaiting = 0;
  private scheduled: NodeJS.Immediate | undefined;
  private droppedCount = 0;
  private readonly perTurn: number;
  private readonly sliceMs: number;
  private readonly now: () => number;

  constructor(private readonly options: JudgingQueueOptions<T>) {
    this.perTurn = Math.max(1, options.perTurn ?? JUDGED_PER_TURN);
    this.sliceMs = Math.max(0, options.sliceMs ?? JUDGING_SLICE_MS);
    this.now = options.now ?? (() => performance.now());
  }

  /** Exchanges waiting to be judged. */
  get waiting(): number {
    return this.items.length - this.head;
  }

  /** Exchanges that did not fit since the start (forwarded, never judged). */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Queues `item` (holding `bytes` of bodies) for judging; false (and counted) when the queue is full. */
  push(item: T, bytes: number): boolean {
    const { exchanges, bytes: maxBytes } = this.options.limits;
    if (this.waiting >= exchanges || this.bytesWaiting + bytes > maxBytes) {
      this.droppedCount++;
      this.options.onDrop?.(item);
      return false;
    }
    this.items.push({ item, bytes });
    this.bytesWaiting += bytes;
    this.scheduled ??= setImmediate(() => this.turn());
    return true;
  }

  /** Judges every item waiting, now. */
  drain(): void {
    if (this.scheduled !== undefined) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    this.judgeUpTo(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
  }

  private turn(): void {
    this.scheduled = undefined;
    const { exchanges, bytes } = this.options.limits;
    const backlog = Math.min(1, Math.max(this.waiting / exchanges, this.bytesWaiting / bytes));
    this.judgeUpTo(this.perTurn, this.now() + this.sliceMs * (1 + BACKLOG_GROWTH * backlog));
    if (this.waiting > 0) this.scheduled = setImmediate(() => this.turn());
  }

  /** Judges up to `count` items, and none after the clock passed `deadline` (at least one, though). */
  private judgeUpTo(count: number, deadline: number): void {
    let judged = 0;
    while (judged < count && this.head < this.items.length && (judged === 0 || this.now() < deadline)) {
      const next = this.items[this.head];
      this.items[this.head] = undefined;
      this.head++;
      if (next === undefined) continue;
      this.bytesWaiting -= next.bytes;
      judged++;
      try {
        this.options.judge(next.item);
      } catch (error) {
        this.options.onError(error, next.item);
      }
    }
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
