/**
 * What a commit tells every other process: for each queue it wrote, the keys it changed (`NOTIFY greenline_commit`,
 * sent inside the committing transaction, so it is delivered once the commit is visible, in commit order, and never
 * for a transaction that rolled back). Every process LISTENs (engine/cluster/leases.ts): a queue's working set catches
 * up on what another process committed by reading only the keys that changed (engine/runtime/workingSet.ts), the
 * driver of the queue runs what a commit put in its outbox or timers, and the dashboard's live feed hears of it.
 *
 * A payload is JSON: `{"p": sender, "q": queueId, "c": [[collection, ...key without the queue id], …], "r": […], "v": n}`,
 * the keys put (`c`) and removed (`r`), the due time of each timer put (`t`: `[[name, dueAt], …]`, so that the driver
 * arms it without a read), the JSON put at each key of `c` as far as the payload has room (`j`, null where left out:
 * the hearers keep them, postgres/scopeCache.ts, so that their next transactions of the queue need not read them), and the queue's scope version the commit made (`n`: postgres/scopeCache.ts and
 * heardVersions.ts; the database writes it in, as it bumps the version). PostgreSQL
 * refuses payloads of 8000 bytes or more: a commit that changed too many keys of one queue says `"all": true` instead
 * of listing them (its hearers rebuild what they keep of the queue).
 */
import { decodeKey } from '../keyCodec.js';
import type { Key, KeyPart } from '../store.js';
import { scopeOf } from './queueScope.js';

/** The channel every commit to a queue notifies. */
export const COMMIT_CHANNEL = 'greenline_commit';

/**
 * Logs a queue appends to and reads only by range (scan): their values are not sent (nor kept by hearers, whose
 * caches keep scans apart), which leaves the payload's room to the records transactions read by key.
 */
const LOGS: ReadonlySet<string> = new Set(['events', 'timeline', 'metricsLog']);

/** Under PostgreSQL's 8000 bytes, with room for the queue id and sender. */
const MAX_PAYLOAD = 7000;

/** A change a commit made to a queue: the collection, then the key after the queue id. */
export type QueueChange = readonly [string, ...KeyPart[]];

export interface CommitNotice {
  /** The process (store) that committed. */
  sender: string;
  queueId: string;
  /**
   * The keys put and removed (and the due time of each timer put: `[name, dueAt]`; the JSON put at each key of `puts`
   * that fitted, null where left out), or `all`: too many to list.
   */
  changes:
    | { puts: QueueChange[]; removes: QueueChange[]; timers?: [string, number][]; values?: (string | null)[] }
    | 'all';
  /** The version of the queue's scope (`queue:<id>`) the commit made, when the notice says it. */
  version?: number;
}

type Changed = Iterable<{ coll: string; key: Uint8Array; json?: string }>;

/**
 * The payloads of a commit's notices, one per queue it changed, each without its end: the scope whose new version
 * completes it, and the text before the version (the worker adds the version and `}`). `puts`, `removes`: the
 * collection and encoded key of each.
 */
export function commitPayloads(sender: string, puts: Changed, removes: Changed): { scope: string; prefix: string }[] {
  const byQueue = new Map<string, { c: QueueChange[]; r: QueueChange[]; t?: [string, number][] }>();
  const values = new Map<string, (string | undefined)[]>();
  const add = (changed: Changed, kind: 'c' | 'r') => {
    for (const { coll, key, json } of changed) {
      const decoded: Key = decodeKey(key);
      const scope = scopeOf(coll as never, decoded);
      if (scope === undefined || !scope.startsWith('queue:')) continue;
      const queueId = String(decoded[0]);
      let lists = byQueue.get(queueId);
      if (lists === undefined) byQueue.set(queueId, (lists = { c: [], r: [] }));
      lists[kind].push([coll, ...decoded.slice(1)]);
      if (kind === 'c') values.set(queueId, [...(values.get(queueId) ?? []), LOGS.has(coll) ? undefined : json]);
      // A timer's due time goes with it: the driver arms it without reading it (engine/runtime/driverWork.ts).
      if (coll === 'timers' && json !== undefined)
        (lists.t ??= []).push([String(decoded[1]), Number(JSON.parse(json))]);
    }
  };
  add(puts, 'c');
  add(removes, 'r');
  const open = (value: object): string => `${JSON.stringify(value).slice(0, -1)},"v":`;
  return [...byQueue].map(([queueId, changes]) => {
    const payload = open({ p: sender, q: queueId, ...changes });
    if (Buffer.byteLength(payload) >= MAX_PAYLOAD)
      return { scope: `queue:${queueId}`, prefix: open({ p: sender, q: queueId, all: true }) };
    // The values put, in the room left (in the order put; null: left out), so that hearers keep them (scopeCache.ts).
    let room = MAX_PAYLOAD - Buffer.byteLength(payload) - ',"j":[]'.length;
    const kept = (values.get(queueId) ?? []).map((json) => {
      const size = json === undefined ? Number.POSITIVE_INFINITY : Buffer.byteLength(JSON.stringify(json)) + 1;
      if (size > room) return null;
      room -= size;
      return json as string;
    });
    const full = kept.some((json) => json !== null) ? open({ p: sender, q: queueId, ...changes, j: kept }) : payload;
    return { scope: `queue:${queueId}`, prefix: full };
  });
}

/**
 * Whether a payload is a notice `sender` sent (its own commit, heard back), told from its first bytes without parsing
 * it: every process hears its own commits too, and has nothing to do with them.
 */
export function sentBy(payload: string | undefined, sender: string): boolean {
  return payload?.startsWith(`{"p":${JSON.stringify(sender)},`) === true;
}

/** Reads a payload; undefined for one that is not a commit notice (another version's, or garbage). */
export function parseCommitNotice(payload: string | undefined): CommitNotice | undefined {
  if (payload === undefined) return undefined;
  try {
    const value = JSON.parse(payload) as {
      p?: unknown;
      q?: unknown;
      c?: unknown;
      r?: unknown;
      all?: unknown;
      v?: unknown;
      t?: unknown;
      j?: unknown;
    };
    if (typeof value.p !== 'string' || typeof value.q !== 'string') return undefined;
    const version = typeof value.v === 'number' && Number.isSafeInteger(value.v) ? { version: value.v } : {};
    if (value.all === true) return { sender: value.p, queueId: value.q, changes: 'all', ...version };
    const list = (changes: unknown) =>
      Array.isArray(changes) && changes.every((change) => Array.isArray(change) && typeof change[0] === 'string');
    if (!list(value.c) || !list(value.r)) return undefined;
    const timers =
      Array.isArray(value.t) &&
      value.t.every((timer) => Array.isArray(timer) && typeof timer[0] === 'string' && typeof timer[1] === 'number')
        ? { timers: value.t as [string, number][] }
        : {};
    const values =
      Array.isArray(value.j) &&
      value.j.length === (value.c as unknown[]).length &&
      value.j.every((json) => json === null || typeof json === 'string')
        ? { values: value.j as (string | null)[] }
        : {};
    return {
      sender: value.p,
      queueId: value.q,
      changes: { puts: value.c as QueueChange[], removes: value.r as QueueChange[], ...timers, ...values },
      ...version,
    };
  } catch {
    return undefined;
  }
}
