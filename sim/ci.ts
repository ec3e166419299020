/**
 * The scenario's CI: it knows which PRs a run contains (the PRs under test and the ones of its predictive base) and
 * fails every run that contains a broken one; any other run fails spuriously with the flake rate.
 *
 * Durations depend on what a run tests, not on when or where it runs: the run of a set of PRs (the PRs under test,
 * not its base) lasts a log-normal duration drawn from the seed and that set, the same every time that set is tested,
 * in every configuration. A PR tested alone — every run of a queue without batching — always lasts its own duration,
 * `prDurationMs`, the one the oracle gives it (so the oracle is a true lower bound: see oracle.ts). Flakes are drawn
 * per attempt: the n-th run of a set flakes, or not, alike in every configuration, and a retest draws anew. Common
 * random numbers throughout: differences between configurations come from the configurations, not from luck.
 */
import { logNormalMs, uniforms } from '../engine/providers/simCi.js';
import type { CI, CiRun, StatusReporter } from '../engine/providers/types.js';
import type { Scheduler } from '../engine/runtime/scheduler.js';

export const SCENARIO_CI_CONTEXT = 'greenline/sim';

export interface CiDurations {
  seed: number;
  medianMinutes: number;
  p90Minutes: number;
}

export interface ScenarioCiOptions extends CiDurations {
  flakeRate: number;
  isBroken: (number: number) => boolean;
}

/** What a run's test branch holds, found when the run starts: the PRs under test and the PRs ahead of them. */
export interface RunContents {
  prs: readonly number[];
  basePrs: readonly number[];
}

export type RunContentsLookup = (runId: string) => RunContents;

/** The set of PRs a run tests, as a key: the numbers in increasing order. */
export function testedSetKey(prs: readonly number[]): string {
  return [...prs].sort((a, b) => a - b).join(',');
}

/** How long a run testing these PRs lasts (ms): a function of the seed and the set alone. */
export function runDurationMs(options: CiDurations, prs: readonly number[]): number {
  const [u1, u2] = uniforms(options.seed, `duration:${testedSetKey(prs)}`);
  return logNormalMs(options.medianMinutes, options.p90Minutes, u1, u2);
}

/** A PR's own CI duration: how long every run testing it alone lasts. */
export function prDurationMs(options: CiDurations, number: number): number {
  return runDurationMs(options, [number]);
}

export class ScenarioCi implements CI {
  readonly name = 'scenario';
  private contents: RunContentsLookup | undefined;
  /** Runs started so far per tested set: the attempt number of the next one. */
  private readonly attempts = new Map<string, number>();

  constructor(
    private readonly scheduler: Scheduler,
    private readonly options: ScenarioCiOptions,
  ) {}

  /** The engine is built with this CI, so the lookup of a run's PRs is attached after. */
  attach(contents: RunContentsLookup): void {
    this.contents = contents;
  }

  /** Whether the `attempt`-th run (from 0) testing `contents.prs` on top of `contents.basePrs` passes, and how long it takes. */
  plan(contents: RunContents, attempt: number): { passes: boolean; durationMs: number } {
    const [u] = uniforms(this.options.seed, `flake:${testedSetKey(contents.prs)}#${attempt}`);
    const broken = [...contents.basePrs, ...contents.prs].some((number) => this.options.isBroken(number));
    return { passes: !broken && u >= this.options.flakeRate, durationMs: runDurationMs(this.options, contents.prs) };
  }

  start(run: CiRun, report: StatusReporter): void {
    if (this.contents === undefined) throw new Error('the scenario CI is not attached to an engine');
    const contents = this.contents(run.runId);
    const key = testedSetKey(contents.prs);
    const attempt = this.attempts.get(key) ?? 0;
    this.attempts.set(key, attempt + 1);
    const plan = this.plan(contents, attempt);
    this.scheduler.schedule(`scenario-ci:${run.runId}`, run.startedAt + plan.durationMs, () =>
      report({ org: run.org, repo: run.repo, sha: run.sha, context: SCENARIO_CI_CONTEXT, state: plan.passes ? 'success' : 'failure' }),
    );
  }

  stop(runId: string): void {
    this.scheduler.cancel(`scenario-ci:${runId}`);
  }
}
