/**
 * What this process knows of the lock scopes (queueScope.ts) it wrote lately, so that a write transaction holding a
 * scope's lock reads the scope from memory rather than asking the database again. Every commit that writes a scope
 * makes its version (greenline_scope_versions) one further; a write transaction reads the version with the lock
 * (statements.ts), and what is kept of the scope is used only when it is of that version: the scope's state as of the
 * commit the lock comes after. Otherwise it is dropped and filled again by the transaction's reads.
 *
 * It stays current without asking: this process's commits change it as they changed the database (the version one
 * further), and another process's commit to a queue is heard (its notice names the keys it changed and the version it
 * made: commitNotices.ts): those keys are dropped, and the scope is of the new version. A notice that skips a version
 * (one not heard), or says `all`, drops the scope.
 *
 * Kept per scope: keys (their JSON, or null: absent), and the answers of scans and counts, each dropped when a key of
 * its range changes. At most MAX_SCOPES scopes, the least recently used dropped first; a scope holding more than
 * MAX_ENTRIES keys and rows is dropped.
 */
const MAX_SCOPES = 2_000;
const MAX_ENTRIES = 2_000;

/** A scan's or count's range, as latin1 strings of the encoded bounds (bytes compare as these strings do). */
export interface Span {
  lower?: string;
  upper?: string;
}

interface Ranged {
  coll: string;
  span: Span;
  value: unknown;
  size: number;
}

interface Scope {
  version: number;
  /** `${collection}\0${latin1 key}` → the JSON stored, or null (absent). */
  keys: Map<string, string | null>;
  /** Scans and counts by their request, each with the range it covered. */
  ranges: Map<string, Ranged>;
  size: number;
}

export type Change = readonly [coll: string, enc: string, json: string | null];

const within = (span: Span, enc: string): boolean =>
  (span.lower === undefined || enc >= span.lower) && (span.upper === undefined || enc < span.upper);

export class ScopeCache {
  private readonly scopes = new Map<string, Scope>();
  hits = 0;
  misses = 0;

  /**
   * The scope's lock was taken: its version in the database now. Returns whether what is kept of it is current. A
   * negative version is unknown (a member of the cluster writes without bumping versions): nothing kept of any scope
   * can be trusted then, nor afterwards, so all of it is forgotten and nothing is kept of this transaction's reads.
   */
  locked(scope: string, version: number): boolean {
    if (version < 0) {
      this.scopes.clear();
      return false;
    }
    const kept = this.scopes.get(scope);
    this.scopes.delete(scope);
    if (kept !== undefined && kept.version === version) {
      this.scopes.set(scope, kept);
      return true;
    }
    this.scopes.set(scope, { version, keys: new Map(), ranges: new Map(), size: 0 });
    if (this.scopes.size > MAX_SCOPES) this.scopes.delete(this.scopes.keys().next().value as string);
    return false;
  }

  /** A kept key (undefined: not kept), of a scope `locked` said current. */
  key(scope: string, coll: string, enc: string): string | null | undefined {
    const value = this.scopes.get(scope)?.keys.get(`${coll}\u0000${enc}`);
    if (value === undefined) this.misses++;
    else this.hits++;
    return value;
  }

  /** A kept scan or count (undefined: not kept). */
  ranged(scope: string, request: string): unknown {
    const value = this.scopes.get(scope)?.ranges.get(request)?.value;
    if (value === undefined) this.misses++;
    else this.hits++;
    return value;
  }

  /** What a read under the scope's lock found, of the version `locked` read. */
  keepKey(scope: string, coll: string, enc: string, json: string | null): void {
    const kept = this.scopes.get(scope);
    if (kept === undefined) return;
    kept.keys.set(`${coll}\u0000${enc}`, json);
    this.grew(scope, kept, 1);
  }

  keepRanged(scope: string, request: string, coll: string, span: Span, value: unknown, size: number): void {
    const kept = this.scopes.get(scope);
    if (kept === undefined) return;
    kept.ranges.set(request, { coll, span, value, size });
    this.grew(scope, kept, size + 1);
  }

  /**
   * A commit made the scope `version`: this process's (`changes`: every key it wrote, with what), or another's heard
   * (`changes`: the keys it changed, their values unknown; 'all': unknown).
   */
  committed(scope: string, version: number, changes: readonly (Change | readonly [string, string])[] | 'all'): void {
    const kept = this.scopes.get(scope);
    if (kept === undefined || version <= kept.version) return;
    if (version !== kept.version + 1 || changes === 'all') {
      this.scopes.delete(scope);
      return;
    }
    kept.version = version;
    for (const change of changes) {
      const [coll, enc] = change;
      const id = `${coll}\u0000${enc}`;
      if (change.length === 3) kept.keys.set(id, (change as Change)[2]);
      else kept.keys.delete(id);
      for (const [request, ranged] of kept.ranges) {
        if (ranged.coll === coll && within(ranged.span, enc)) {
          kept.ranges.delete(request);
          kept.size -= ranged.size + 1;
        }
      }
    }
    this.grew(scope, kept, 0);
  }

  /** Forgets the scope (its version is not known). */
  drop(scope: string): void {
    this.scopes.delete(scope);
  }

  private grew(scope: string, kept: Scope, by: number): void {
    kept.size += by;
    if (kept.size + kept.keys.size > 2 * MAX_ENTRIES || kept.keys.size > MAX_ENTRIES) this.scopes.delete(scope);
  }
}
