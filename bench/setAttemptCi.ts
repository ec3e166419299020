/**
 * The scenario CI's draws before issue 35, kept for bench/variance.ts to measure against: a flake was drawn from the
 * seed, the set of PRs under test (not its base) and the attempt — the n-th run of that set started in this queue,
 * cancelled runs included. Two configurations that reset differently reached a set's n-th attempt on different trees,
 * and with a different count of cancelled runs before it, so they met different flakes. A set's duration was a draw
 * of its own, unrelated to its PRs' (a PR alone lasted its own duration, as today).
 */
import { logNormalMs, uniforms } from '../engine/providers/simCi.js';
import type { CiRun, StatusReporter } from '../engine/providers/types.js';
import { type CiDurations, SCENARIO_CI_CONTEXT, ScenarioCi, testedSetKey } from '../sim/ci.js';

/** A set's duration before issue 35: its own draw, unrelated to its PRs' own durations (a PR alone: its own). */
export function setDurationMs(options: CiDurations, prs: readonly number[]): number {
  const [u1, u2] = uniforms(options.seed, `duration:${testedSetKey(prs)}`);
  return logNormalMs(options.medianMinutes, options.p90Minutes, u1, u2);
}

export class SetAttemptCi extends ScenarioCi {
  /** Runs started so far per tested set: the attempt number of the next one. */
  private readonly attempts = new Map<string, number>();

  override start(run: CiRun, report: StatusReporter): void {
    const contents = this.lookup(run.runId);
    const key = testedSetKey(contents.prs);
    const attempt = this.attempts.get(key) ?? 0;
    this.attempts.set(key, attempt + 1);
    const [u] = uniforms(this.options.seed, `flake:${key}#${attempt}`);
    const broken = [...contents.basePrs, ...contents.prs].some((number) => this.options.isBroken(number));
    const passes = !broken && u >= this.options.flakeRate;
    this.scheduler.schedule(`scenario-ci:${run.runId}`, run.startedAt + setDurationMs(this.options, contents.prs), () =>
      report({
        org: run.org,
        repo: run.repo,
        sha: run.sha,
        context: SCENARIO_CI_CONTEXT,
        state: passes ? 'success' : 'failure',
      }),
    );
  }
}
