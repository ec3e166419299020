/**
 * The queue's runtime budgets read from its settings: the adaptive window of main-line runs in flight, and the
 * isolations speculation by likelihood may still make. Pure functions over a queue's settings and runtime.
 */
import { countVerdict, nextWindow } from '../planner/window.js';
import type { QueueRuntime, QueueSettings } from './queues.js';

export function adaptiveWindowFloorOf(settings: QueueSettings): number {
  return Math.max(1, Math.min(settings.adaptiveWindowFloor ?? 1, settings.concurrency));
}

/** How many main-line runs may be in flight: `concurrency`, or the adaptive window within its bounds. */
export function mainWindowOf(settings: QueueSettings, runtime: Pick<QueueRuntime, 'window'>): number {
  if (settings.adaptiveWindow !== true) return settings.concurrency;
  return Math.max(
    adaptiveWindowFloorOf(settings),
    Math.min(runtime.window ?? settings.concurrency, settings.concurrency),
  );
}

/**
 * The adaptive window after a main-line run's verdict (engine/planner/window.ts): one more on a pass; on a failure
 * that resets the runs behind it (`resets`), half, but not below the depth the verdicts seen make useful. Only a
 * verdict on a settled base (`settled`: every PR under the run passed, or merged) counts toward the failure rate: a
 * run that fails on top of a PR still testing may fail because of it (a broken PR whose run is slower fails every run
 * behind it that ends first), so its failure says nothing of its own PRs.
 */
export function adaptWindow(
  settings: QueueSettings,
  runtime: QueueRuntime,
  passed: boolean,
  verdict: { resets?: boolean; settled?: boolean } = {},
): void {
  if (settings.adaptiveWindow !== true) return;
  const { resets = true, settled = true } = verdict;
  const bounds = { floor: adaptiveWindowFloorOf(settings), concurrency: settings.concurrency };
  const current = mainWindowOf(settings, runtime);
  if (settled) runtime.windowVerdicts = countVerdict(runtime.windowVerdicts, passed);
  if (passed || resets) runtime.window = nextWindow(current, bounds, passed, resets, runtime.windowVerdicts);
}

export const DEFAULT_SPECULATION_RUNS_PERCENT = 10;

/** Speculation by likelihood: how many more PRs the budget lets it isolate now. */
export function speculationAllowance(settings: QueueSettings, runtime: QueueRuntime): number {
  const percent = settings.speculationRunsPercent ?? DEFAULT_SPECULATION_RUNS_PERCENT;
  return Math.floor(1 + (percent * runtime.counters.submission) / 100) - (runtime.speculated ?? 0);
}
