/**
 * A failed run, as the estimate plays it (engine/planner/bisectionMemory.ts): a PR alone that fails leaves the queue; a
 * batch is split in halves, each tested on the target at once (the bisection pool); a half that fails is split again
 * until the PRs that fail are alone, and a half that passes returns to the main line, where it is tested again before
 * it merges (the main line moved meanwhile: in the simulator nearly every half found good is tested once more).
 */
import type { EstimatePr } from './model.js';

/** Plays the bisection of `prs` failed at `at`: records when its good PRs merge, and answers when the last does. */
export function bisect(
  prs: EstimatePr[],
  bad: ReadonlySet<number>,
  at: number,
  draw: (atLeast: number) => number,
  record: (prs: EstimatePr[], at: number) => void,
): number {
  if (prs.length <= 1) return at;
  const half = Math.ceil(prs.length / 2);
  let over = at;
  for (const part of [prs.slice(0, half), prs.slice(half)]) {
    const ended = at + draw(0);
    if (part.every((pr) => !bad.has(pr.number))) {
      const merged = ended + draw(0);
      record(part, merged);
      over = Math.max(over, merged);
    } else {
      over = Math.max(over, part.length === 1 ? ended : bisect(part, bad, ended, draw, record));
    }
  }
  return over;
}
