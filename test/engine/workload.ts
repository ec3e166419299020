/**
 * Steps of random queue workloads, shared by the property tests (engine, retention): what each step does to a
 * harness, and the check that the engine's live working set equals the one rebuilt from the store.
 */
import { expect } from 'vitest';
import { KEY, type QueueHarness } from './queueHarness.js';

export type WorkloadStep =
  | { kind: 'submit'; number: number; priority?: 'high' | 'urgent' }
  | { kind: 'cancel'; number: number }
  | { kind: 'restart'; number: number }
  /** CI reports on one of the active runs with a test branch (the `pick`-th, modulo their count). */
  | { kind: 'report'; pick: number; success: boolean }
  | { kind: 'advance'; minutes: number }
  | { kind: 'configure'; patch: Record<string, unknown> };

/** Applies one step (an EngineError, a refusal, is the caller's to take as part of the workload). */
export function applyStep(h: QueueHarness, step: WorkloadStep): void {
  switch (step.kind) {
    case 'submit':
      h.engine.submitPullRequest(KEY, step.number, step.priority === undefined ? {} : { priority: step.priority });
      return;
    case 'cancel':
      h.engine.cancelPullRequest(KEY, step.number);
      return;
    case 'restart':
      h.engine.restartTestsOnPullRequest(KEY, step.number);
      return;
    case 'report': {
      const active = h.activeRuns().filter((run) => run.testBranchSha !== '');
      const run = active[step.pick % Math.max(1, active.length)];
      if (run !== undefined)
        h.engine.setCommitStatus(KEY.org, {
          repo: KEY.repo,
          sha: run.testBranchSha,
          context: 'ci',
          state: step.success ? 'success' : 'failure',
        });
      return;
    }
    case 'advance':
      h.scheduler.advanceBy(step.minutes * 60_000);
      return;
    case 'configure':
      h.engine.updateQueue(KEY, step.patch);
      return;
  }
}

/** The working set the engine kept across transactions equals the one rebuilt from the store now. */
export function expectWorkingSetCurrent(h: QueueHarness): void {
  const { live, rebuilt } = h.engine.workingSetsOf(h.queueId);
  const view = (set: typeof live) => ({
    version: set?.version,
    record: set?.queue,
    queue: set?.queueSnapshot === undefined ? undefined : [set.queueSnapshot.value, set.queueSnapshot.context],
    prs: [...(set?.prs ?? new Map()).entries()]
      .sort(([a], [b]) => a - b)
      .map(([number, actor]) => [number, actor.record, actor.snapshot.value, actor.snapshot.context]),
    runs: [...(set?.runs ?? new Map()).entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([id, actor]) => [id, actor.record, actor.snapshot.value, actor.snapshot.context]),
  });
  expect(live).toBeDefined();
  expect(view(live)).toEqual(view(rebuilt));
}
