/**
 * The scenario's CI: it knows which PRs a run contains (the PRs on the target branch at its base, the PRs ahead of it
 * and the PRs under test) and fails every run that contains a broken one; any other run fails spuriously with the
 * flake rate.
 *
 * Common random numbers, so that differences between configurations come from the configurations, not from luck.
 * Every draw is a keyed hash (`uniforms`: SHA-256 of the seed and a name, a counter-based generator whose counter is
 * the name), so a draw depends on what it is named after and on nothing else — not on how many draws came before it:
 *
 * - **duration**: drawn from the seed and the PRs under test (not its base, not the attempt): the same changes take
 *   the same time to test. A PR tested alone — every run of a queue without batching — always lasts its own
 *   duration, `prDurationMs`, the one the oracle gives it (so the oracle is a true lower bound: see oracle.ts); a
 *   set's duration combines its PRs' deviates (`runDurationMs`).
 * - **outcome**: drawn from the seed, the tested tree (trees.ts: the set of PRs it holds, each with whether it is
 *   broken) and the number of verdicts that tree has had before in this queue. The k-th verdict on a tree is the same
 *   in every configuration that reaches it; a retest of the same tree draws anew; a run cancelled before its verdict
 *   (a reset, a window shrinking) uses up no draw, so a configuration that cancels more does not shift its luck.
 */
import { logNormalMs, uniforms } from '../engine/providers/simCi.js';
import type { CI, CiRun, StatusReporter } from '../engine/providers/types.js';
import type { Scheduler } from '../engine/runtime/scheduler.js';
import { EMPTY_TREE, treeDigest } from './trees.js';

export const SCENARIO_CI_CONTEXT = 'greenline/sim';

export interface CiDurations {
  seed: number;
  medianMinutes: number;
  p90Minutes: number;
}

export interface ScenarioCiOptions extends CiDurations {
  flakeRate: number;
  isBroken: (number: number) => boolean;
  /**
   * What of the tested tree names an outcome: `whole` (the default) — the PRs merged at its base too; `unmerged` —
   * only the PRs ahead and under test (bench/variance.ts compares the two).
   */
  treeScope?: 'whole' | 'unmerged';
}

/** What a run's test branch holds, found when the run starts. */
export interface RunContents {
  /** The PRs under test. */
  prs: readonly number[];
  /** The PRs ahead of them merged into the test branch first. */
  basePrs: readonly number[];
  /** The digest of the PRs on the target branch at the run's base (trees.ts); the empty tree when absent. */
  baseTree?: bigint;
}

export type RunContentsLookup = (runId: string) => RunContents;

/** The set of PRs a run tests, as a key: the numbers in increasing order. */
export function testedSetKey(prs: readonly number[]): string {
  return [...prs].sort((a, b) => a - b).join(',');
}

/** A PR's standard normal deviate of duration (Box–Muller on its two uniforms), and the uniforms. */
function prDeviate(seed: number, number: number): { z: number; u1: number; u2: number } {
  const [u1, u2] = uniforms(seed, `duration:${number}`);
  return { z: Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2), u1, u2 };
}

/**
 * How long a run testing these PRs lasts (ms): log-normal, from the deviates of its PRs, z = Σ zᵢ / √k — a standard
 * normal again, so every run's duration has the scenario's median and p90, whatever its size. A PR alone lasts its
 * own duration; sets that share PRs have correlated durations (a batch of 2 and a batch of 4 holding it, √(2/4)), so
 * configurations that group the same PRs differently still meet related luck.
 */
export function runDurationMs(options: CiDurations, prs: readonly number[]): number {
  const distinct = [...new Set(prs)];
  if (distinct.length === 1) {
    const { u1, u2 } = prDeviate(options.seed, distinct[0] as number);
    return logNormalMs(options.medianMinutes, options.p90Minutes, u1, u2);
  }
  const z =
    distinct.reduce((sum, number) => sum + prDeviate(options.seed, number).z, 0) /
    Math.sqrt(Math.max(1, distinct.length));
  // Box–Muller backwards: u2 = 0 gives +√(−2 ln u1), u2 = ½ its negative.
  return logNormalMs(options.medianMinutes, options.p90Minutes, Math.exp((-z * z) / 2), z >= 0 ? 0 : 0.5);
}

/** A PR's own CI duration: how long every run testing it alone lasts. */
export function prDurationMs(options: CiDurations, number: number): number {
  return runDurationMs(options, [number]);
}

/**
 * Whether the `verdict`-th verdict (from 0) on a tree passes: never when the tree holds a broken PR, else unless the
 * tree's flake draw says it flakes. The scripted command of the real-service fidelity run (fidelityCommand.ts) calls
 * the same function on the tree it finds checked out, so the simulator and the real run meet the same luck.
 */
export function treePasses(
  options: Pick<ScenarioCiOptions, 'seed' | 'flakeRate'>,
  tree: bigint,
  broken: boolean,
  verdict: number,
): boolean {
  const [u] = uniforms(options.seed, `flake:${tree.toString(16)}#${verdict}`);
  return !broken && u >= options.flakeRate;
}

export interface RunPlan {
  passes: boolean;
  durationMs: number;
}

export class ScenarioCi implements CI {
  readonly name = 'scenario';
  private contents: RunContentsLookup | undefined;
  /** Verdicts given so far per tested tree (its digest): the index of the next one's draw. */
  private readonly verdicts = new Map<bigint, number>();

  constructor(
    protected readonly scheduler: Scheduler,
    protected readonly options: ScenarioCiOptions,
  ) {}

  /** The engine is built with this CI, so the lookup of a run's PRs is attached after. */
  attach(contents: RunContentsLookup): void {
    this.contents = contents;
  }

  /** The tree a run tests: its base tree with the PRs ahead and under test. */
  treeOf(contents: RunContents): bigint {
    const base = this.options.treeScope === 'unmerged' ? EMPTY_TREE : (contents.baseTree ?? EMPTY_TREE);
    return treeDigest(treeDigest(base, contents.basePrs, this.options.isBroken), contents.prs, this.options.isBroken);
  }

  /** Whether the `verdict`-th run (from 0) to reach a verdict on this tree passes, and how long a run of it takes. */
  plan(contents: RunContents, verdict: number): RunPlan {
    const broken = [...contents.basePrs, ...contents.prs].some((number) => this.options.isBroken(number));
    return {
      passes: treePasses(this.options, this.treeOf(contents), broken, verdict),
      durationMs: runDurationMs(this.options, contents.prs),
    };
  }

  protected lookup(runId: string): RunContents {
    if (this.contents === undefined) throw new Error('the scenario CI is not attached to an engine');
    return this.contents(runId);
  }

  start(run: CiRun, report: StatusReporter): void {
    const contents = this.lookup(run.runId);
    const tree = this.treeOf(contents);
    this.scheduler.schedule(
      `scenario-ci:${run.runId}`,
      run.startedAt + runDurationMs(this.options, contents.prs),
      () => {
        // The outcome is drawn at the verdict, so that runs cancelled before it use up no draw.
        const verdict = this.verdicts.get(tree) ?? 0;
        this.verdicts.set(tree, verdict + 1);
        const plan = this.plan(contents, verdict);
        report({
          org: run.org,
          repo: run.repo,
          sha: run.sha,
          context: SCENARIO_CI_CONTEXT,
          state: plan.passes ? 'success' : 'failure',
        });
      },
    );
  }

  stop(runId: string): void {
    this.scheduler.cancel(`scenario-ci:${runId}`);
  }
}
