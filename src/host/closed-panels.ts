// zot's examples keep rendering a panel for a moment after it closed (the user pressed Esc while an
// update was on its way). Those frames are dropped quietly; this remembers, for the latest closed
// panel ids, which extension owned each, so that another extension's frames are still refused.

/** How many closed panel ids are remembered; the oldest is forgotten first. */
export const CLOSED_PANELS_LIMIT = 256;

export class ClosedPanels<Owner> {
  private readonly owners = new Map<string, { owner: Owner; late: number }>();

  constructor(private readonly limit = CLOSED_PANELS_LIMIT) {}

  get size(): number {
    return this.owners.size;
  }

  closed(panelId: string, owner: Owner): void {
    this.owners.delete(panelId);
    this.owners.set(panelId, { owner, late: 0 });
    if (this.owners.size > this.limit) this.owners.delete(this.owners.keys().next().value!);
  }

  opened(panelId: string): void {
    this.owners.delete(panelId);
  }

  /**
   * A frame from `from` for the closed panel `panelId`: when `from` owned it, how many such frames
   * came since it closed (this one included); `undefined` when the panel was not `from`'s.
   */
  late(panelId: string, from: Owner): number | undefined {
    const entry = this.owners.get(panelId);
    if (entry === undefined || entry.owner !== from) return undefined;
    return ++entry.late;
  }

  clear(): void {
    this.owners.clear();
  }
}
