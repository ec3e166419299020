/**
 * Speculation along the build graph (issue 28), with direct bases in parallel mode: a main-line run starts only on a
 * base that is likely to hold. Its chance of holding is the chance that every PR of its base not yet passed passes
 * (view.ts `holdChance`: each with one less its failure likelihood). A run that holds with chance h costs 1 / h runs
 * for each result that stands, so a run is started only when h ≥ 1 / RUNS_PER_RESULT: the runs spent per result stay
 * within RUNS_PER_RESULT, and the CI goes to the runs likeliest to stand first (the head of each chain, the PRs on
 * few unsettled PRs), not to runs deep behind a hot target that one failure among dozens would reset. A PR held back
 * starts once enough of its base has passed; nothing else changes (bases, merges, failures).
 */
import type { Decision, Plan } from './planner.js';
import { LineupView } from './view.js';

/** The most runs a result may cost on average: a run starts when its base holds with at least the inverse. */
export const RUNS_PER_RESULT = 2;

/**
 * The starts of `startRuns`, those of main-line runs unlikely to hold left out. A run left out does not take a slot:
 * while some were left out and slots remain, the starts are asked again with as many more slots (at most a few
 * times), so that the PRs behind a held-back one (another lane, or a base that has passed) start in its place.
 */
export function gateStarts(view: LineupView, startRuns: (view: LineupView) => Plan): Plan {
  const first = startRuns(view);
  if (!view.direct) return first;
  const { input } = view;
  const isMain = (decision: Decision) => decision.kind === 'startRun' && decision.runKind === 'main';
  const likely = (decision: Decision) => {
    if (!isMain(decision)) return true;
    const at = view.at((decision as { prs: number[] }).prs[0] as number);
    return at === undefined || view.holdChance(at) >= 1 / RUNS_PER_RESULT;
  };
  const limit = Math.min(input.settings.concurrency, input.window ?? input.settings.concurrency);
  let room = limit - input.activeRuns.filter((run) => run.kind === 'main').length;
  let plan = first;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const mains = plan.decisions.filter(isMain);
    const held = mains.filter((decision) => !likely(decision)).length;
    if (held === 0 || mains.length - held >= room) break;
    const settings = { ...input.settings, concurrency: input.settings.concurrency + held };
    const wider = startRuns(
      new LineupView({ ...input, settings, window: (input.window ?? input.settings.concurrency) + held }),
    );
    const exhausted = wider.decisions.filter(isMain).length <= mains.length;
    plan = wider;
    if (exhausted) break;
  }
  const decisions = plan.decisions.filter((decision) => {
    if (!isMain(decision)) return true;
    if (room <= 0 || !likely(decision)) return false;
    room--;
    return true;
  });
  return { ...plan, decisions };
}

/** How many times the starts are asked again for the slots of held-back runs. */
const MAX_ROUNDS = 4;
