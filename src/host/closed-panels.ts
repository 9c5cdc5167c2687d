// zot's examples keep rendering a panel for a moment after it closed (the user pressed Esc while an
// update was on its way). Those frames are dropped quietly; this remembers the latest closed panels,
// each the pair (owner, panel id), so that a frame for a panel the sender never had is still refused.

/** How many closed panels are remembered; the oldest is forgotten first. */
export const CLOSED_PANELS_LIMIT = 256;

interface Closed<Owner> {
  owner: Owner;
  late: number;
}

export class ClosedPanels<Owner> {
  // By panel id, in order of the latest close; each id's owners are few (one per extension).
  private readonly byId = new Map<string, Closed<Owner>[]>();
  private count = 0;

  constructor(private readonly limit = CLOSED_PANELS_LIMIT) {}

  get size(): number {
    return this.count;
  }

  closed(panelId: string, owner: Owner): void {
    const entries = this.forget(panelId, owner) ?? [];
    entries.push({ owner, late: 0 });
    this.count++;
    this.byId.delete(panelId);
    this.byId.set(panelId, entries);
    while (this.count > this.limit) {
      const [oldestId, oldest] = this.byId.entries().next().value!;
      oldest.shift();
      this.count--;
      if (oldest.length === 0) this.byId.delete(oldestId);
    }
  }

  /** `owner` opened `panelId` again (without `owner`: every owner of that id is forgotten). */
  opened(panelId: string, owner?: Owner): void {
    if (owner !== undefined) {
      this.forget(panelId, owner);
      return;
    }
    this.count -= this.byId.get(panelId)?.length ?? 0;
    this.byId.delete(panelId);
  }

  /**
   * A frame from `from` for the closed panel `panelId`: when `from` owned it, how many such frames
   * came since it closed (this one included); `undefined` when the panel was not `from`'s.
   */
  late(panelId: string, from: Owner): number | undefined {
    const entry = this.byId.get(panelId)?.find((e) => e.owner === from);
    return entry === undefined ? undefined : ++entry.late;
  }

  clear(): void {
    this.byId.clear();
    this.count = 0;
  }

  /** Drops (owner, panelId); returns the id's remaining entries (still in the map), if any. */
  private forget(panelId: string, owner: Owner): Closed<Owner>[] | undefined {
    const entries = this.byId.get(panelId);
    if (entries === undefined) return undefined;
    const i = entries.findIndex((e) => e.owner === owner);
    if (i !== -1) {
      entries.splice(i, 1);
      this.count--;
    }
    if (entries.length === 0) this.byId.delete(panelId);
    return entries;
  }
}
