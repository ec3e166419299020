/** Speculation by likelihood, applied (engine/planner/speculation.ts decides). */
import { newBisection } from '../planner/bisectionMemory.js';
import { split } from './bisectionMoves.js';
import type { QueueTx } from './queueTx.js';

/**
 * Speculation by likelihood: a PR likely to fail is tested alone off the main line (a bisection of one) before the
 * PRs behind it build on it; they are predicted without it at once.
 */
export function isolate(q: QueueTx, decision: { pr: number; likelihood: number; behind: number; line?: true }): void {
  q.sendPr(decision.pr, { type: 'ISOLATE' });
  q.runtime.speculated = (q.runtime.speculated ?? 0) + 1;
  const bisectionId = `s${q.runtime.counters.group}`;
  q.runtime.bisections[bisectionId] = newBisection();
  q.out.timeline(decision.pr, {
    kind: 'speculating',
    likelihood: decision.likelihood,
    behind: decision.behind,
    ...(decision.line === true ? { line: true as const } : {}),
  });
  split(q, [decision.pr], bisectionId);
}
