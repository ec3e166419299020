/**
 * The scenario CI of a forked simulation (fork.ts): the same CI as ci.ts, with draws of its own seed, so that what was
 * not yet known when the simulation was forked is drawn afresh. A run already under way at the fork lasts at least what
 * it has run: its duration is drawn from the scenario's log-normal conditioned on that.
 */
import { normalCdf, normalQuantile } from '../engine/estimate/durations.js';
import { uniforms } from '../engine/providers/simCi.js';
import type { CiRun, StatusReporter } from '../engine/providers/types.js';
import type { Scheduler } from '../engine/runtime/scheduler.js';
import { runDurationMs, SCENARIO_CI_CONTEXT, ScenarioCi, type ScenarioCiOptions } from './ci.js';

const Z90 = 1.2815515655446004;

/** A duration (ms) of the scenario's CI, at least `atLeast`, for a uniform `u` in (0, 1). */
export function durationAtLeast(
  options: Pick<ScenarioCiOptions, 'medianMinutes' | 'p90Minutes'>,
  atLeast: number,
  u: number,
): number {
  const mu = Math.log(options.medianMinutes * 60_000);
  const sigma =
    options.p90Minutes > options.medianMinutes ? Math.log(options.p90Minutes / options.medianMinutes) / Z90 : 0;
  if (sigma === 0) return Math.max(atLeast, Math.exp(mu));
  const from = atLeast <= 0 ? 0 : normalCdf((Math.log(atLeast) - mu) / sigma);
  const p = Math.min(1 - 1e-12, Math.max(1e-12, from + u * (1 - from)));
  return Math.max(atLeast, Math.round(Math.exp(mu + sigma * normalQuantile(p))));
}

export class ForkCi extends ScenarioCi {
  /** Verdicts given so far per tested tree, in this fork. */
  private readonly given = new Map<bigint, number>();

  constructor(
    scheduler: Scheduler,
    options: ScenarioCiOptions,
    /** When the simulation was forked (ms since the epoch). */
    private readonly forkedAt: number,
  ) {
    super(scheduler, options);
  }

  override start(run: CiRun, report: StatusReporter): void {
    const contents = this.lookup(run.runId);
    const tree = this.treeOf(contents);
    const elapsed = this.forkedAt - run.startedAt;
    const durationMs =
      elapsed > 0
        ? durationAtLeast(this.options, elapsed, uniforms(this.options.seed, `under-way:${run.runId}`)[0])
        : runDurationMs(this.options, contents.prs);
    this.scheduler.schedule(`scenario-ci:${run.runId}`, run.startedAt + durationMs, () => {
      const verdict = this.given.get(tree) ?? 0;
      this.given.set(tree, verdict + 1);
      const { passes } = this.plan(contents, verdict);
      report({
        org: run.org,
        repo: run.repo,
        sha: run.sha,
        context: SCENARIO_CI_CONTEXT,
        state: passes ? 'success' : 'failure',
      });
    });
  }
}
