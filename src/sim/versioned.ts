// A Map and a Set that count their changes. Elision (src/sim/elision.ts) tells an idle loop round by
// comparing such counters before and after it: a count only grows, so a sum of counts changes whenever
// any of them does (sizes could cancel out: one added here, one removed there).

export class VersionedMap<K, V> extends Map<K, V> {
  /** Bumped by every set and by every delete that removed something. */
  version = 0;

  override set(key: K, value: V): this {
    this.version++;
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    const removed = super.delete(key);
    if (removed) this.version++;
    return removed;
  }

  override clear(): void {
    if (this.size > 0) this.version++;
    super.clear();
  }
}

export class VersionedSet<T> extends Set<T> {
  /** Bumped by every add of a new value and by every delete that removed something. */
  version = 0;

  override add(value: T): this {
    if (!this.has(value)) this.version++;
    return super.add(value);
  }

  override delete(value: T): boolean {
    const removed = super.delete(value);
    if (removed) this.version++;
    return removed;
  }

  override clear(): void {
    if (this.size > 0) this.version++;
    super.clear();
  }
}
