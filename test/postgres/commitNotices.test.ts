/**
 * The notices of a commit (engine/store/postgres/commitNotices.ts) and what a working set makes of them: the keys of
 * each queue a commit changed, put and removed apart; too many for PostgreSQL's payload limit say "all"; a set
 * catches up only over commits heard without a gap up to the store's version, else it is rebuilt.
 */
import { describe, expect, test } from 'vitest';
import { encodeKey } from '../../engine/store/keyCodec.js';
import { commitPayloads, parseCommitNotice, sentBy } from '../../engine/store/postgres/commitNotices.js';
import { WorkingSet } from '../../engine/runtime/workingSet.js';
import type { QueueRecord } from '../../engine/model/queues.js';
import type { ReadTx } from '../../engine/store/store.js';

const change = (coll: string, ...key: (string | number)[]) => ({ coll, key: encodeKey(key) });

describe('commit notices', () => {
  test('one per queue, its keys put and removed; keys of no queue are left out; too many say all', () => {
    const payloads = commitPayloads(
      'me',
      [change('pullRequests', 'q1', 7), change('events', 'q1', 3), change('events', 'q2', 0), change('tokens', 't1')],
      [change('outbox', 'q1', 2)],
    );
    // The database ends each payload with the version the commit made of the queue's scope.
    const sent = (payload: { scope: string; prefix: string } | undefined, version: number) =>
      `${payload?.prefix}${version}}`;
    expect(payloads.map((payload) => payload.scope)).toEqual(['queue:q1', 'queue:q2']);
    expect(payloads.map((payload, i) => parseCommitNotice(sent(payload, 10 + i)))).toEqual([
      {
        sender: 'me',
        queueId: 'q1',
        changes: {
          puts: [
            ['pullRequests', 7],
            ['events', 3],
          ],
          removes: [['outbox', 2]],
        },
        version: 10,
      },
      { sender: 'me', queueId: 'q2', changes: { puts: [['events', 0]], removes: [] }, version: 11 },
    ]);
    const many = Array.from({ length: 2000 }, (_, i) => change('pullRequests', 'q1', i));
    const [big] = commitPayloads('me', many, []);
    expect(Buffer.byteLength(sent(big, 2 ** 53 - 1))).toBeLessThan(8000);
    expect(parseCommitNotice(sent(big, 3))).toEqual({ sender: 'me', queueId: 'q1', changes: 'all', version: 3 });
    expect(parseCommitNotice('q_123')).toBeUndefined();
    expect(parseCommitNotice('{"p":1}')).toBeUndefined();
  });

  test('a working set catches up only over commits heard in order, without a gap, up to the version the store holds', () => {
    const queue = (version: number) =>
      ({
        id: 'q1',
        runtime: { counters: { event: version }, lineup: [], waiting: [], activeRuns: [] },
      }) as unknown as QueueRecord;
    const tx = { get: () => undefined } as unknown as ReadTx;
    const heard = (seq: number) => ({ puts: [['events', seq]], removes: [] });
    // Heard 5 → 6 → 7: caught up to 7.
    let set = new WorkingSet('q1', 5, queue(5));
    set.hear(heard(5));
    set.hear(heard(6));
    expect(set.catchUp(tx, queue(7))).toBe(true);
    expect(set.version).toBe(7);
    // The store is further than what was heard (a notice still on its way): no.
    set.hear(heard(7));
    expect(set.catchUp(tx, queue(9))).toBe(false);
    // A gap (6 missed): no, and not later either.
    set = new WorkingSet('q1', 5, queue(5));
    set.hear(heard(6));
    set.hear(heard(7));
    expect(set.catchUp(tx, queue(8))).toBe(false);
    // Too many keys to list: no.
    set = new WorkingSet('q1', 5, queue(5));
    set.hear('all');
    expect(set.catchUp(tx, queue(6))).toBe(false);
    // A commit already in the set (heard late) is ignored; one that changed the set's records without an input is not followed.
    set = new WorkingSet('q1', 5, queue(5));
    set.hear(heard(3));
    set.hear(heard(5));
    expect(set.catchUp(tx, queue(6))).toBe(true);
    set.hear({ puts: [['pullRequests', 1]], removes: [] });
    set.hear(heard(6));
    expect(set.catchUp(tx, queue(7))).toBe(false);
  });
  test("a process tells its own notices from their first bytes, another's not", () => {
    const [payload] = commitPayloads('4242-ab12cd34', [change('pullRequests', 'q1', 7)], []);
    const sent = `${payload?.prefix}3}`;
    expect(sentBy(sent, '4242-ab12cd34')).toBe(true);
    expect(sentBy(sent, '4242-ab12cd3')).toBe(false);
    expect(sentBy(sent, '42')).toBe(false);
    expect(sentBy(undefined, '4242-ab12cd34')).toBe(false);
  });
});
