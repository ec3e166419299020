/**
 * Impacted targets (parallel mode): what a PR's head SHA touches in the build graph, uploaded by CI through
 * setImpactedTargets. Stored per queue, PR and head SHA, apart from the event log (a list may hold 100,000 targets):
 * the logged input names the upload by its digest. The last upload for a SHA wins; the PR's current head SHA picks
 * the upload that applies, so an upload for an older head never applies to a newer one.
 */
import { createHash } from 'node:crypto';
import type { Targets } from '../planner/graph.js';
import type { ReadTx, WriteTx } from '../store/store.js';
import type { QueueInput } from './events.js';

export type ImpactedTargets = readonly string[] | 'ALL';

export interface ImpactedTargetsRecord {
  targets: ImpactedTargets;
  /** sha256 of the list (or of "ALL"): names the upload in the event log. */
  digest: string;
  uploadedAt: string;
}

/** Uploads kept per PR: the latest few head SHAs (a PR resubmitted at an older head still finds its targets). */
export const KEPT_SHAS_PER_PR = 3;

/** Without repeats, in the order given (sorting 100,000 long names would cost more than the rest of an upload). */
export function normalizeTargets(targets: ImpactedTargets): ImpactedTargets {
  return targets === 'ALL' ? 'ALL' : [...new Set(targets)];
}

export function digestOf(targets: ImpactedTargets): string {
  const hash = createHash('sha256');
  if (targets === 'ALL') hash.update('ALL');
  else for (const target of targets) hash.update(target).update('\u0000');
  return hash.digest('hex');
}

export function putTargets(
  tx: WriteTx,
  queueId: string,
  number: number,
  sha: string,
  record: ImpactedTargetsRecord,
): void {
  const head = sha.toLowerCase();
  tx.put('impactedTargets', [queueId, number, head], record);
  const shas = [head, ...(tx.get('impactedTargetShas', [queueId, number]) ?? []).filter((other) => other !== head)];
  for (const old of shas.slice(KEPT_SHAS_PER_PR)) tx.remove('impactedTargets', [queueId, number, old]);
  tx.put('impactedTargetShas', [queueId, number], shas.slice(0, KEPT_SHAS_PER_PR));
}

/** An upload for a PR's head SHA (POST /v1/setImpactedTargets): the input logged, and what it writes at `now`. */
export function targetsUpload(
  number: number,
  sha: string,
  targets: ImpactedTargets,
): { input: QueueInput; write: (tx: WriteTx, queueId: string, now: number) => void } {
  const normalized = normalizeTargets(targets);
  const digest = digestOf(normalized);
  const head = sha.toLowerCase();
  return {
    input: { type: 'targetsSet', number, sha: head, targets: normalized === 'ALL' ? 'ALL' : normalized.length, digest },
    write: (tx, queueId, now) =>
      putTargets(tx, queueId, number, head, { targets: normalized, digest, uploadedAt: new Date(now).toISOString() }),
  };
}

export function getTargets(
  tx: ReadTx,
  queueId: string,
  number: number,
  sha: string,
): ImpactedTargetsRecord | undefined {
  return sha === '' ? undefined : tx.get('impactedTargets', [queueId, number, sha.toLowerCase()]);
}

/** What the planner sees: unknown targets count as ALL. */
export function planTargets(record: ImpactedTargetsRecord | undefined): Targets {
  return record === undefined ? null : record.targets;
}

/** The union of several PRs' targets, for a run's details: `["ALL"]` when any of them impacts everything. */
export function unionOf(sets: readonly (ImpactedTargets | undefined)[]): string[] {
  if (sets.some((set) => set === 'ALL')) return ['ALL'];
  const union = new Set<string>();
  for (const set of sets) if (set !== undefined && set !== 'ALL') for (const target of set) union.add(target);
  return [...union].sort();
}
