/**
 * The scenario's CI: it knows which PRs a run contains (the PRs under test and the ones of its predictive base) and
 * fails every run that contains a broken one; any other run fails spuriously with the flake rate. Durations are
 * log-normal (the synthetic CI's math). Outcome and duration are functions of the seed and the run id, so every
 * configuration draws the same numbers for its n-th run (common random numbers: differences between configurations
 * come from the configurations, not from luck).
 */
import { logNormalMs, uniforms } from '../engine/providers/simCi.js';
import type { CI, CiRun, StatusReporter } from '../engine/providers/types.js';
import type { Scheduler } from '../engine/scheduler.js';

export const SCENARIO_CI_CONTEXT = 'greenline/sim';

export interface ScenarioCiOptions {
  seed: number;
  medianMinutes: number;
  p90Minutes: number;
  flakeRate: number;
  isBroken: (number: number) => boolean;
}

/** The PRs whose changes a run's test branch holds, found when the run starts. */
export type RunContents = (runId: string) => readonly number[];

export class ScenarioCi implements CI {
  readonly name = 'scenario';
  private contents: RunContents | undefined;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly options: ScenarioCiOptions,
  ) {}

  /** The engine is built with this CI, so the lookup of a run's PRs is attached after. */
  attach(contents: RunContents): void {
    this.contents = contents;
  }

  /** Whether a run with these contents passes, and how long it takes. */
  plan(runId: string, prs: readonly number[]): { passes: boolean; durationMs: number } {
    const [u1, u2, u3] = uniforms(this.options.seed, runId);
    const broken = prs.some((number) => this.options.isBroken(number));
    return {
      passes: !broken && u3 >= this.options.flakeRate,
      durationMs: logNormalMs(this.options.medianMinutes, this.options.p90Minutes, u1, u2),
    };
  }

  start(run: CiRun, report: StatusReporter): void {
    if (this.contents === undefined) throw new Error('the scenario CI is not attached to an engine');
    const plan = this.plan(run.runId, this.contents(run.runId));
    this.scheduler.schedule(`scenario-ci:${run.runId}`, run.startedAt + plan.durationMs, () =>
      report({ org: run.org, repo: run.repo, sha: run.sha, context: SCENARIO_CI_CONTEXT, state: plan.passes ? 'success' : 'failure' }),
    );
  }

  stop(runId: string): void {
    this.scheduler.cancel(`scenario-ci:${runId}`);
  }
}
