/** Speculation by likelihood, applied (engine/planner/speculation.ts decides). */
import { newBisection } from '../planner/bisectionMemory.js';
import { split } from './bisectionMoves.js';
import type { MoveScope, Write } from './writes.js';

/**
 * Speculation by likelihood: a PR likely to fail is tested alone off the main line (a bisection of one) before the
 * PRs behind it build on it; they are predicted without it at once.
 */
export function isolate(
  q: MoveScope,
  decision: { pr: number; likelihood: number; behind: number; line?: true },
): Write[] {
  const number = decision.pr;
  q.runtime.speculated = (q.runtime.speculated ?? 0) + 1;
  const bisectionId = `s${q.runtime.counters.group}`;
  q.runtime.bisections[bisectionId] = newBisection();
  const text = {
    kind: 'speculating',
    likelihood: decision.likelihood,
    behind: decision.behind,
    ...(decision.line === true ? { line: true as const } : {}),
  } as const;
  return [
    { to: 'pr', number, event: { type: 'ISOLATE' } },
    { to: 'timeline', number, text },
    ...split(q, [number], bisectionId),
  ];
}
