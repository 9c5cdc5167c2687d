/**
 * A name registry where conflicts are settled by LOAD ORDER, never by arrival time: each name is
 * owned by the registration with the lowest order; built-ins always win.
 */
export interface Registration<T> {
  /** Name as registered (canonical spelling). */
  name: string;
  /** Owner extension. */
  extension: string;
  /** Owner's load order. */
  order: number;
  value: T;
}

export interface Conflict {
  name: string;
  /** The registration that lost. */
  loser: string;
  /** Who owns the name: an extension name or `built-in`. */
  winner: string;
}

export class Registry<T> {
  private readonly byKey = new Map<string, Registration<T>[]>();

  constructor(
    private readonly keyOf: (name: string) => string,
    private readonly builtins: ReadonlySet<string>,
  ) {}

  /** Adds a registration; returns the conflict it causes (if any) and whether the active owner changed. */
  add(entry: Registration<T>): { conflict: Conflict | undefined; changed: boolean } {
    const key = this.keyOf(entry.name);
    if (this.builtins.has(key)) {
      return { conflict: { name: entry.name, loser: entry.extension, winner: 'built-in' }, changed: false };
    }
    const list = this.byKey.get(key);
    if (list === undefined) {
      this.byKey.set(key, [entry]);
      return { conflict: undefined, changed: true };
    }
    const same = list.findIndex((r) => r.extension === entry.extension);
    if (same !== -1) {
      // The same extension registering the name again (any case): first registration stays.
      return { conflict: { name: entry.name, loser: entry.extension, winner: entry.extension }, changed: false };
    }
    const before = list[0];
    let index = list.findIndex((r) => r.order > entry.order);
    if (index === -1) index = list.length;
    list.splice(index, 0, entry);
    const winner = list[0]!;
    if (before === undefined) return { conflict: undefined, changed: true };
    const loser = winner === entry ? before : entry;
    return { conflict: { name: entry.name, loser: loser.extension, winner: winner.extension }, changed: winner === entry };
  }

  /** Removes every registration of one extension; returns the keys whose active owner changed. */
  removeExtension(extension: string): string[] {
    const changed: string[] = [];
    for (const [key, list] of this.byKey) {
      const index = list.findIndex((r) => r.extension === extension);
      if (index === -1) continue;
      list.splice(index, 1);
      if (index === 0) changed.push(key);
      if (list.length === 0) this.byKey.delete(key);
    }
    return changed;
  }

  /** Replaces `extension`'s registration of `name` (spelling and value) in place, as a restart registers it again; false when it has none. */
  update(name: string, extension: string, value: T): boolean {
    const entry = this.byKey.get(this.keyOf(name))?.find((r) => r.extension === extension);
    if (entry === undefined) return false;
    entry.name = name;
    entry.value = value;
    return true;
  }

  /** Removes `extension`'s registration of `name`; true when it was the active one. */
  remove(name: string, extension: string): boolean {
    const key = this.keyOf(name);
    const list = this.byKey.get(key);
    const index = list === undefined ? -1 : list.findIndex((r) => r.extension === extension);
    if (list === undefined || index === -1) return false;
    list.splice(index, 1);
    if (list.length === 0) this.byKey.delete(key);
    return index === 0;
  }

  /** True when the agent owns `name` (a built-in). */
  isBuiltin(name: string): boolean {
    return this.builtins.has(this.keyOf(name));
  }

  /** The active registration for a name. */
  get(name: string): Registration<T> | undefined {
    return this.byKey.get(this.keyOf(name))?.[0];
  }

  /** True when this extension's registration of `name` is the active one. */
  isActive(name: string, extension: string): boolean {
    return this.get(name)?.extension === extension;
  }

  /** Active registrations, in load order of their owners, then registration order. */
  active(): Registration<T>[] {
    const result: Registration<T>[] = [];
    for (const list of this.byKey.values()) result.push(list[0]!);
    return result.sort((a, b) => a.order - b.order);
  }

  clear(): void {
    this.byKey.clear();
  }
}
