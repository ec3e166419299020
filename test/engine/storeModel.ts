/**
 * A reference model of the store's documented semantics, written straight from the interface's prose and
 * independent of the implementations' key encoding: parts compare numbers numerically, strings by UTF-8 bytes,
 * numbers before strings; at equal prefixes the shorter key first.
 */
import type { Key, KeyPart, ScanOptions } from '../../engine/store/index.js';

export function comparePart(a: KeyPart, b: KeyPart): number {
  if (typeof a === 'number' && typeof b === 'number') return a === b ? 0 : a < b ? -1 : 1;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export function compareKeys(a: Key, b: Key): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = comparePart(a[i] as KeyPart, b[i] as KeyPart);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

export function hasPrefix(key: Key, prefix: Key): boolean {
  return prefix.length <= key.length && prefix.every((part, i) => comparePart(part, key[i] as KeyPart) === 0);
}

/** A collection as a map from JSON-encoded key to entry. */
export class ModelCollection {
  readonly entries = new Map<string, { key: KeyPart[]; value: unknown }>();

  put(key: Key, value: unknown): void {
    this.entries.set(JSON.stringify(key), { key: [...key], value: structuredClone(value) });
  }

  remove(key: Key): boolean {
    return this.entries.delete(JSON.stringify(key));
  }

  clone(): ModelCollection {
    const copy = new ModelCollection();
    for (const [k, e] of this.entries) copy.entries.set(k, e);
    return copy;
  }

  scan(options: ScanOptions = {}): { key: KeyPart[]; value: unknown }[] {
    const { prefix, start, end, reverse, limit } = options;
    let out = [...this.entries.values()]
      .filter((e) => prefix === undefined || hasPrefix(e.key, prefix))
      .filter((e) => start === undefined || compareKeys(e.key, start) >= 0)
      .filter((e) => end === undefined || compareKeys(e.key, end) < 0)
      .sort((a, b) => compareKeys(a.key, b.key));
    if (reverse) out = out.reverse();
    return limit === undefined ? out : out.slice(0, limit);
  }
}
