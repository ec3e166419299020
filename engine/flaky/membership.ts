/**
 * List membership over time. The unhealthy and quarantined listings page through `flakyMembership`, whose entries
 * record for each test the sequence-number intervals during which it was in a list. A page token carries the
 * repository's sequence number of its first page, so every later page shows the list exactly as it was then, while
 * uploads go on changing it.
 */
import type { ReadTx, WriteTx } from '../store/store.js';
import type { FlakyMembershipRecord, MembershipInterval, MembershipList } from './records.js';

/** Closed intervals kept per entry (older ones only matter to page tokens that old). */
const KEPT_INTERVALS = 8;

export function openInterval(record: FlakyMembershipRecord | undefined): MembershipInterval | undefined {
  const last = record?.intervals.at(-1);
  return last !== undefined && last[1] === null ? last : undefined;
}

/** The interval holding snapshot `seq`, if the test was in the list then. */
export function intervalAt(record: FlakyMembershipRecord, seq: number): MembershipInterval | undefined {
  return record.intervals.find(([from, to]) => from <= seq && (to === null || to > seq));
}

/** Puts the test in or out of a list from sequence `seq` on; writes only when that changes something. */
export function setMember(
  tx: WriteTx,
  key: { org: string; repoId: string; list: MembershipList; testId: string },
  member: boolean,
  seq: number,
  now: number,
): void {
  const storeKey = [key.org, key.repoId, key.list, key.testId];
  const record = tx.get('flakyMembership', storeKey);
  const open = openInterval(record);
  if (member === (open !== undefined)) return;
  const intervals = record?.intervals.map((interval) => [...interval] as MembershipInterval) ?? [];
  if (member) intervals.push([seq, null, now]);
  else (intervals[intervals.length - 1] as MembershipInterval)[1] = seq;
  tx.put('flakyMembership', storeKey, { intervals: intervals.slice(-KEPT_INTERVALS) });
}

/** The ids of the tests in a list as of snapshot `seq`, in id order, with when each entered it. */
export function membersAt(
  tx: ReadTx,
  key: { org: string; repoId: string; list: MembershipList },
  seq: number,
): { testId: string; since: number }[] {
  const members: { testId: string; since: number }[] = [];
  for (const entry of tx.scan('flakyMembership', { prefix: [key.org, key.repoId, key.list] })) {
    const interval = intervalAt(entry.value, seq);
    if (interval !== undefined) members.push({ testId: String(entry.key[3]), since: interval[2] });
  }
  return members;
}

/** The ids of the tests in a list now (open intervals). */
export function currentMembers(tx: ReadTx, key: { org: string; repoId: string; list: MembershipList }): string[] {
  const members: string[] = [];
  for (const entry of tx.scan('flakyMembership', { prefix: [key.org, key.repoId, key.list] })) {
    if (openInterval(entry.value) !== undefined) members.push(String(entry.key[3]));
  }
  return members;
}
