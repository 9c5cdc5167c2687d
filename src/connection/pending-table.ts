// The pending requests of one connection, by number.
//
// Not a Map: a long-lived Map is in the old generation, and every table it reallocates as entries
// come and go (each ~capacity requests) is allocated there too. A replaced table is garbage that
// only a full GC finds, and until then it still points at the requests it held: each scavenge
// keeps them alive, and with them every object of their calls (promises, closures, frames), which
// all end up promoted. Pipelined calls then spent several times more in GC (docs/performance.md,
// "Performance v2, part 2"). The slots of an array are only overwritten, never copied away.

/** What the table needs of an entry: its number (request numbers increase, one per request). */
export interface Numbered {
  readonly seq: number;
}

const INITIAL_SLOTS = 16;

/** The slots of a table that has had no entry: a connection that sends no request holds none. Never written. */
const NO_SLOTS: readonly undefined[] = Object.freeze([]);

const bySeq = (a: Numbered, b: Numbered): number => a.seq - b.seq;

/**
 * Entries by number, each in slot `seq % slots.length`. A number whose slot is taken (a request
 * that stays pending while as many others come and go) doubles the slots while they are at least
 * half in use; otherwise it waits in a small Map beside them.
 */
export class PendingTable<T extends Numbered> {
  // Made by the first add() (see NO_SLOTS); mask 0 reads index 0 of the empty slots: undefined.
  private slots: (T | undefined)[] = NO_SLOTS as (T | undefined)[];
  private mask = 0;
  /** Entries whose slot was taken. */
  private overflow: Map<number, T> | undefined;
  /** Entries in the table. */
  size = 0;

  get(seq: number): T | undefined {
    const entry = this.slots[seq & this.mask];
    if (entry !== undefined && entry.seq === seq) return entry;
    return this.overflow?.get(seq);
  }

  has(seq: number): boolean {
    return this.get(seq) !== undefined;
  }

  /** Adds an entry whose number is not in the table. */
  add(entry: T): void {
    if (this.slots === NO_SLOTS) {
      this.slots = new Array<T | undefined>(INITIAL_SLOTS).fill(undefined);
      this.mask = INITIAL_SLOTS - 1;
    }
    this.size++;
    if (this.place(entry)) return;
    if (this.size * 2 > this.slots.length) {
      this.grow();
      if (this.place(entry)) return;
    }
    (this.overflow ??= new Map()).set(entry.seq, entry);
  }

  /** Removes the entry numbered `seq`; false when there is none. */
  delete(seq: number): boolean {
    const index = seq & this.mask;
    const entry = this.slots[index];
    if (entry !== undefined && entry.seq === seq) {
      this.slots[index] = undefined;
      this.size--;
      return true;
    }
    if (this.overflow?.delete(seq) !== true) return false;
    if (this.overflow.size === 0) this.overflow = undefined;
    this.size--;
    return true;
  }

  /** Every entry, by number (the order they were added in). */
  values(): T[] {
    const values: T[] = [];
    for (const entry of this.slots) if (entry !== undefined) values.push(entry);
    if (this.overflow !== undefined) values.push(...this.overflow.values());
    return values.sort(bySeq);
  }

  clear(): void {
    if (this.slots !== NO_SLOTS) this.slots.fill(undefined);
    this.overflow = undefined;
    this.size = 0;
  }

  private place(entry: T): boolean {
    const index = entry.seq & this.mask;
    if (this.slots[index] !== undefined) return false;
    this.slots[index] = entry;
    return true;
  }

  /** Twice the slots, every entry (the waiting ones too) placed anew. */
  private grow(): void {
    const entries = this.values();
    const length = this.slots.length * 2;
    this.slots = new Array<T | undefined>(length).fill(undefined);
    this.mask = length - 1;
    this.overflow = undefined;
    for (const entry of entries) if (!this.place(entry)) (this.overflow ??= new Map()).set(entry.seq, entry);
  }
}
