// Request deadlines that share timers.
//
// The requests of one tick with the same timeout share one timer: Node starts every timer created
// in one tick at the same loop time, so they would all fire together anyway. The timer is cleared
// once the last of them settles, except for the newest group of each timeout, which is kept for the
// next tick's requests once all of its own have settled: one call at a time then costs no timer
// setup at all. A kept group taken again notes when (one clock read), and its timer is not
// refresh()ed: when it fires, a group started again since the timer was set is set again for what
// is left of its deadline. (refresh() walks Node's timer lists and calls into libuv: measured as
// ~1-2 us of each small round trip on one CPU, where that code runs cold after every switch to the
// extension.) A kept timer that fires with nothing left to time out is dropped. Should the two
// clocks disagree (fake timers that leave `hrtime` real), kept timers are refresh()ed again:
// a deadline may then be late by one timeout once, never early.
// An entry moved to a new deadline (move()) stays listed in its old group, which skips it: the
// entry's `deadline` no longer names that group.
//
// One call at a time uses one timeout: the first open group and the newest kept one sit in fields,
// in front of the maps, and a group knows whether it is kept. The round trip then does no Map
// lookup here (each cost ~60 ns; endTick's Map#clear() allocated a table per tick).
import { monotonicMs } from '../clock.js';

/** What a deadline needs of a request. */
export interface Timed {
  settled: boolean;
  deadline: { readonly timeoutMs: number } | undefined;
}

export interface DeadlineGroup<T extends Timed> {
  readonly timeoutMs: number;
  /** The group's requests: the first one, and the others (one call at a time needs no array). */
  first: T | undefined;
  more: T[] | undefined;
  live: number;
  timer: NodeJS.Timeout | undefined;
  /** When the timer was set, and when the group's requests last started (monotonicMs). */
  armedAt: number;
  startedAt: number;
  /** It is the newest group of its timeout, whose timer is kept for reuse. */
  kept: boolean;
}

/** How many deadline groups (distinct timeouts) keep their timer for reuse. */
export const MAX_KEPT_DEADLINES = 8;

export class Deadlines<T extends Timed> {
  /** This tick's first group; closed at the end of the tick (endTick). */
  private openFirst: DeadlineGroup<T> | undefined;
  /** This tick's groups of other timeouts, by timeout (rare: most callers use one timeout). */
  private openMore: Map<number, DeadlineGroup<T>> | undefined;
  /** The newest group of each timeout, whose timer is kept for reuse; and the one last used. */
  // Made by the first join() that needs it: a connection that sends no request holds none.
  private kept: Map<number, DeadlineGroup<T>> | undefined;
  private lastKept: DeadlineGroup<T> | undefined;
  /** The clock (monotonicMs) and the timers disagreed (fake timers): kept timers are refresh()ed instead (see restart). */
  private refreshes = false;

  /** `onTimeout` runs for each request of a group that is not settled when its timer fires. */
  constructor(private readonly onTimeout: (entry: T, timeoutMs: number) => void) {}

  /** Adds `entry` to this tick's group of `timeoutMs` (0 to 2^31-1 ms); store the result as `entry.deadline`. */
  join(entry: T, timeoutMs: number): DeadlineGroup<T> {
    let group = this.openGroup(timeoutMs);
    if (group === undefined) {
      const last = this.lastKept;
      const latest = last !== undefined && last.kept && last.timeoutMs === timeoutMs;
      const kept = latest ? last : this.kept?.get(timeoutMs);
      if (kept !== undefined && kept.live === 0 && kept.timer !== undefined) {
        kept.first = undefined;
        kept.more = undefined;
        this.restart(kept);
        // Least recently used first, for the eviction below (the last used is already newest).
        if (!latest) this.renew(timeoutMs, kept);
        group = kept;
      } else {
        const now = monotonicMs();
        const created: DeadlineGroup<T> = { timeoutMs, first: undefined, more: undefined, live: 0, timer: undefined, armedAt: now, startedAt: now, kept: true };
        this.arm(created, timeoutMs);
        if (kept !== undefined) {
          kept.kept = false;
          if (kept.live === 0) this.clearGroup(kept);
        }
        // Callers passing a remaining budget make a new timeout each time: keep a few, not one per value.
        const keptGroups = (this.kept ??= new Map());
        if (kept === undefined && keptGroups.size >= MAX_KEPT_DEADLINES) {
          // The least recently used (see renew).
          const [oldestMs, oldest] = keptGroups.entries().next().value!;
          keptGroups.delete(oldestMs);
          oldest.kept = false;
          if (oldest.live === 0) this.clearGroup(oldest); // else cleared at its last release
        }
        this.renew(timeoutMs, created);
        group = created;
      }
      this.lastKept = group;
      if (this.openFirst === undefined) this.openFirst = group;
      else (this.openMore ??= new Map()).set(timeoutMs, group);
    }
    if (group.first === undefined) group.first = entry;
    else (group.more ??= []).push(entry);
    group.live++;
    return group;
  }

  /** `group` is the newest kept group of its timeout, and the most recently used (Map order: insertion). */
  private renew(timeoutMs: number, group: DeadlineGroup<T>): void {
    const keptGroups = this.kept!;
    keptGroups.delete(timeoutMs);
    keptGroups.set(timeoutMs, group);
  }

  private openGroup(timeoutMs: number): DeadlineGroup<T> | undefined {
    const first = this.openFirst;
    if (first !== undefined && first.timeoutMs === timeoutMs) return first;
    // The first slot may be empty while groups of other timeouts are open (closeOpen).
    const more = this.openMore;
    return more !== undefined && more.size > 0 ? more.get(timeoutMs) : undefined;
  }

  /** Marks `entry` settled: its group's timer is cleared with the last entry of the group. */
  release(entry: T): void {
    entry.settled = true;
    const group = entry.deadline as DeadlineGroup<T> | undefined;
    if (group !== undefined && --group.live === 0) this.emptied(group);
  }

  /** The last live entry of `group` left it: a kept group keeps its timer, not the requests (nor their calls' objects). */
  private emptied(group: DeadlineGroup<T>): void {
    if (!group.kept) {
      this.clearGroup(group);
      return;
    }
    group.first = undefined;
    group.more = undefined;
  }

  /** Gives `entry` a new deadline of `timeoutMs` from now; its old group's timer skips it. */
  move(entry: T, timeoutMs: number): void {
    const old = entry.deadline as DeadlineGroup<T> | undefined;
    if (old !== undefined && --old.live === 0) this.emptied(old);
    const wasOpen = this.openGroup(timeoutMs) !== undefined;
    entry.deadline = this.join(entry, timeoutMs);
    // endTick() runs only after a tick that wrote something: a group opened here must not stay
    // open for the requests of a later tick (its timer started now).
    if (!wasOpen) this.closeOpen(timeoutMs);
  }

  private closeOpen(timeoutMs: number): void {
    if (this.openFirst?.timeoutMs === timeoutMs) this.openFirst = undefined;
    else this.openMore?.delete(timeoutMs);
  }

  /** The tick is over: its requests join new groups. */
  endTick(): void {
    this.openFirst = undefined;
    // Map#clear() allocates a new table even when empty.
    if (this.openMore !== undefined && this.openMore.size > 0) this.openMore.clear();
  }

  /** Clears every timer (the connection is over). */
  clear(): void {
    if (this.kept === undefined) return;
    for (const group of this.kept.values()) {
      group.kept = false;
      this.clearGroup(group);
    }
    this.kept.clear();
    this.lastKept = undefined;
  }

  /** A kept group is taken again: its start is noted (see fire), or its timer refresh()ed once the clocks disagree. */
  private restart(group: DeadlineGroup<T>): void {
    if (!this.refreshes) {
      const now = monotonicMs();
      if (now >= group.armedAt) {
        group.startedAt = now;
        return;
      }
      // The clock went back: fake timers installed since. The timers' own clock from now on.
      this.refreshes = true;
    }
    group.startedAt = group.armedAt;
    group.timer!.refresh();
  }

  private arm(group: DeadlineGroup<T>, ms: number): void {
    const timer = setTimeout(() => this.fire(group), Math.max(0, ms));
    timer.unref?.();
    group.timer = timer;
  }

  private fire(group: DeadlineGroup<T>): void {
    group.timer = undefined;
    if (group.live > 0 && group.startedAt > group.armedAt) {
      // Started again after its timer was set: its requests have what is left of their own deadline.
      const now = monotonicMs();
      // The timer was set after its tick began: `now - armedAt` may fall short of the timeout by
      // that tick's work. Far short, the clock is not moving with the timers (fake timers
      // that leave `hrtime` real): never time out early; a whole timeout more for this group,
      // and refresh() from now on.
      if (now - group.armedAt < group.timeoutMs / 2) {
        this.refreshes = true;
        group.armedAt = group.startedAt = now;
        this.arm(group, group.timeoutMs);
        return;
      }
      const left = group.startedAt + group.timeoutMs - now;
      if (left > 0) {
        group.armedAt = group.startedAt;
        this.arm(group, Math.ceil(left));
        return;
      }
    }
    const { first, more } = group;
    group.first = undefined;
    group.more = undefined;
    if (first !== undefined && !first.settled && first.deadline === group) this.onTimeout(first, group.timeoutMs);
    if (more !== undefined) for (const entry of more) if (!entry.settled && entry.deadline === group) this.onTimeout(entry, group.timeoutMs);
  }

  private clearGroup(group: DeadlineGroup<T>): void {
    // Still this tick's group of its timeout (settled in the tick it was made, after it lost its
    // kept place): a later request of the tick must get a new group, not one without a timer.
    if (this.openGroup(group.timeoutMs) === group) this.closeOpen(group.timeoutMs);
    if (group.timer !== undefined) clearTimeout(group.timer);
    group.timer = undefined;
    group.first = undefined;
    group.more = undefined;
  }
}
