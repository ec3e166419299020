/**
 * A synthetic CI for demos (GREENLINE_SIM_CI): each test run reports one status, `greenline/sim-ci`, `pending` at
 * once and `success` or `failure` after a duration. Outcome and duration are functions of the seed and the run id,
 * so a restarted service resumes a run where it was and reaches the same result.
 */
import { createHash } from 'node:crypto';
import type { Scheduler } from '../runtime/scheduler.js';
import type { CI, CiRun, StatusReporter } from './types.js';

export interface SimCiOptions {
  /** Share of runs that pass, 0..1. */
  passRate: number;
  /** Median and 90th percentile of a run's duration, in minutes (log-normal). */
  medianMinutes: number;
  p90Minutes: number;
  seed: number;
}

export const SIM_CI_CONTEXT = 'greenline/sim-ci';
export const DEFAULT_SIM_CI: SimCiOptions = { passRate: 0.9, medianMinutes: 2, p90Minutes: 4, seed: 1 };

/** Three independent uniform numbers in (0, 1) derived from the seed and a name (a run id). The simulator uses it too. */
export function uniforms(seed: number, name: string): [number, number, number] {
  const digest = createHash('sha256').update(`${seed}\u0000${name}`).digest();
  const at = (offset: number) => (digest.readUInt32BE(offset) + 0.5) / 2 ** 32;
  return [at(0), at(4), at(8)];
}

/** z such that P(Z < z) = 0.9 for a standard normal Z. */
const Z90 = 1.2815515655446004;

/**
 * A log-normal duration with the given median and 90th percentile (minutes), from two uniform numbers in (0, 1)
 * (Box-Muller), in whole milliseconds (at least 1). p90 equal to the median gives the median every time.
 */
export function logNormalMs(medianMinutes: number, p90Minutes: number, u1: number, u2: number): number {
  const sigma = p90Minutes > medianMinutes ? Math.log(p90Minutes / medianMinutes) / Z90 : 0;
  const normal = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  const minutes = medianMinutes * Math.exp(sigma * normal);
  return Math.max(1, Math.round(minutes * 60_000));
}

export function simCiPlan(options: SimCiOptions, runId: string): { passes: boolean; durationMs: number } {
  const [u1, u2, u3] = uniforms(options.seed, runId);
  return { passes: u3 < options.passRate, durationMs: logNormalMs(options.medianMinutes, options.p90Minutes, u1, u2) };
}

/** Parses "pass=0.9,median=2,p90=4,seed=1" (every part optional); "1" or "on" takes the defaults. */
export function parseSimCi(text: string): SimCiOptions {
  const options = { ...DEFAULT_SIM_CI };
  if (text === '1' || text.toLowerCase() === 'on' || text.toLowerCase() === 'true') return options;
  for (const part of text.split(',')) {
    const [name, raw] = part.split('=').map((piece) => piece.trim());
    const value = Number(raw);
    if (raw === undefined || raw === '' || !Number.isFinite(value)) throw new Error(`"${part}" is not name=number`);
    if (name === 'pass') {
      if (value < 0 || value > 1) throw new Error('pass must be between 0 and 1');
      options.passRate = value;
    } else if (name === 'median') {
      if (value <= 0) throw new Error('median must be positive');
      options.medianMinutes = value;
    } else if (name === 'p90') {
      if (value <= 0) throw new Error('p90 must be positive');
      options.p90Minutes = value;
    } else if (name === 'seed') options.seed = value;
    else throw new Error(`unknown setting "${name}" (pass, median, p90, seed)`);
  }
  if (options.p90Minutes < options.medianMinutes) throw new Error('p90 must be at least the median');
  return options;
}

export class SimCi implements CI {
  readonly name = 'sim';

  constructor(
    private readonly scheduler: Scheduler,
    private readonly options: SimCiOptions = DEFAULT_SIM_CI,
  ) {}

  start(run: CiRun, report: StatusReporter): void {
    const plan = simCiPlan(this.options, run.runId);
    const status = { org: run.org, repo: run.repo, sha: run.sha, context: SIM_CI_CONTEXT };
    report({ ...status, state: 'pending', description: 'simulated CI is running' });
    this.scheduler.schedule(`sim-ci:${run.runId}`, run.startedAt + plan.durationMs, () =>
      report({
        ...status,
        state: plan.passes ? 'success' : 'failure',
        description: `simulated CI ${plan.passes ? 'passed' : 'failed'} after ${(plan.durationMs / 60_000).toFixed(1)} min`,
      }),
    );
  }

  stop(runId: string): void {
    this.scheduler.cancel(`sim-ci:${runId}`);
  }
}
