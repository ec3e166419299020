/** Hand-built planner inputs for the planner's tests and the engine's scenarios that ask the planner directly. */
import { DEFAULT_SETTINGS, type QueueSettings } from '../../engine/model/queues.js';
import type { PlanInput, PlanPullRequest } from '../../engine/planner/planner.js';

/** A PR as the planner sees it: waiting, untested, nothing special, but for `fields`. */
export function pr(number: number, fields: Partial<PlanPullRequest> = {}): PlanPullRequest {
  return {
    number,
    state: 'PENDING',
    noBatch: false,
    readyAt: 0,
    testedBase: null,
    runId: null,
    bisectionId: null,
    group: null,
    mergeRequested: false,
    runsBehindEnded: 0,
    runsBehindFailed: 0,
    failureRetests: 0,
    upToDate: false,
    targets: null,
    ...fields,
  };
}

export function input(
  lineup: PlanPullRequest[],
  settings: Partial<QueueSettings> = {},
  extra: Partial<PlanInput> = {},
): PlanInput {
  const activeRuns = [
    ...new Set(lineup.filter((p) => p.state === 'TESTING' && p.runId !== null).map((p) => p.runId as string)),
  ].map((id) => ({
    id,
    kind: lineup.find((p) => p.runId === id)?.group === null ? ('main' as const) : ('bisection' as const),
    prs: lineup.filter((p) => p.runId === id && p.state === 'TESTING').map((p) => p.number),
  }));
  return {
    state: 'running',
    settings: { ...DEFAULT_SETTINGS, ...settings },
    bisectionConcurrency: 4,
    lineup,
    activeRuns,
    merged: new Set(),
    bisections: {},
    now: 0,
    ...extra,
  };
}
