/**
 * The busy monorepo of issue 28 and the configurations bench/pressureMonorepo.ts runs on it, in a module of their own
 * so that bench/pressureProfile.ts, which pressureMonorepo.ts imports, can run them from its command line without an
 * import cycle (with top-level await, the cycle left `tsx bench/pressureProfile.ts` waiting on itself: exit 13).
 */
import type { QueuePatch } from '../engine/model/queues.js';

export const MONOREPO = {
  name: 'busy-monorepo',
  hours: 24,
  arrivalsPerHour: 200,
  ci: { medianMinutes: 30, p90Minutes: 60 },
  brokenRate: 0.05,
  flakeRate: 0.02,
  targets: { count: 1_000, perPr: 3, allShare: 0.01, skew: 1 },
} as const;

const antiFlake: QueuePatch = { pendingFailureDepth: 1, canOptimisticallyMerge: true };

export const MONOREPO_CONFIGS: { name: string; settings: QueuePatch }[] = [
  { name: 'parallel-c200', settings: { mode: 'parallel', concurrency: 200, ...antiFlake } },
  { name: 'graph-c200', settings: { mode: 'parallel', concurrency: 200, ...antiFlake, parallelBases: 'direct' } },
];
