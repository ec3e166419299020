/**
 * A failure likelihood per PR (issue 22): logistic regression on what the service knows of a PR, trained online on
 * the queue's own history (a merged PR is a pass, a kicked PR a failure). Pure functions; the engine keeps the model
 * in the queue runtime (durable, replayed with the queue's events) and each PR's estimate on its record.
 *
 * Features, each explainable on its own:
 * - `failedAttempts`: the PR's own failed runs so far (across its entries in the queue);
 * - `authorRate`: its author's share of kicked PRs in this queue, smoothed towards the queue's share (prior of 4 PRs),
 *   as log-odds;
 * - `size`: (log2(1 + changed lines) − 6) / 2, as the git host reports them (0 when it does not);
 * - `headFailures`: log2(1 + tests failing on its head commit), from the JUnit uploads of CI on that commit, leaving
 *   out the tests now flaky or broken (they fail without the PR): CI results on its head, read with flaky-test data.
 *   Impacted targets are not mapped to tests anywhere, so the flaky tests of its impacted targets are not used.
 */
/**
 * A failure predictor given from outside, whose probability replaces the model's when it answers: the simulator's
 * benchmarks use it to measure speculation with an oracle (one that knows which PRs are broken) or with the best any
 * model could do on the simulated features. Not for the service: an event log recorded with one does not replay.
 */
export type FailurePredictor = (pr: { number: number; author: string; changedLines?: number }) => number | undefined;

export const FEATURE_NAMES = ['failedAttempts', 'authorRate', 'size', 'headFailures'] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];

export interface LikelihoodModel {
  /** Bias, then one weight per feature (FEATURE_NAMES order). */
  weights: number[];
  /** PR outcomes trained on. */
  trained: number;
  /** Per author: PRs resolved (merged or kicked) and kicked. */
  authors: Record<string, [resolved: number, kicked: number]>;
  queue: [resolved: number, kicked: number];
  /**
   * The curvature (Hessian of the negative log-likelihood) of what it was trained on, row-major; absent: only the
   * prior. Models stored before it existed start from the prior with the weights they learnt.
   */
  precision?: number[];
}

/** Solves h · v = b (h symmetric positive definite, n × n row-major) by Gaussian elimination. */
function solve(h: readonly number[], b: readonly number[], n: number): number[] {
  const a = Array.from({ length: n }, (_, i) => [...h.slice(i * n, i * n + n), b[i] ?? 0]);
  for (let col = 0; col < n; col++) {
    const pivot = a[col]![col]!;
    for (let row = col + 1; row < n; row++) {
      const factor = a[row]![col]! / pivot;
      for (let k = col; k <= n; k++) a[row]![k]! -= factor * a[col]![k]!;
    }
  }
  const v = new Array<number>(n).fill(0);
  for (let row = n - 1; row >= 0; row--) {
    let sum = a[row]![n]!;
    for (let k = row + 1; k < n; k++) sum -= a[row]![k]! * v[k]!;
    v[row] = sum / a[row]![row]!;
  }
  return v;
}

/** What a PR's estimate was made from, kept on its record (so training sees what prediction saw). */
export interface Likelihood {
  p: number;
  features: Record<FeatureName, number>;
}

/** The prior's weight on each feature's weight, as if one PR at the model's certainty had been seen. */
const PRIOR_PRECISION = 1;
/** A floor on an outcome's curvature, so that outcomes the model was sure of still count a little. */
const MIN_CURVATURE = 1e-3;
const PRIOR_PRS = 4;
/** Before any history: about one PR in twenty fails. */
const PRIOR_BIAS = Math.log(0.05 / 0.95);

const PRIOR_WEIGHTS: readonly number[] = [PRIOR_BIAS, 0.5, 1, 0, 1];

/** The weights, with the prior's for features added since the model was stored. */
function weightsOf(model: LikelihoodModel): number[] {
  return PRIOR_WEIGHTS.map((prior, k) => model.weights[k] ?? prior);
}

export function newLikelihoodModel(): LikelihoodModel {
  // The author's rate is already in log-odds over the queue's: a weight of 1 takes it as it is, until trained.
  // One test failing on the PR's own commit, flakes aside, multiplies its odds by e until trained.
  return { weights: [...PRIOR_WEIGHTS], trained: 0, authors: {}, queue: [0, 0] };
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const logit = (p: number) => Math.log(p / (1 - p));

export function featuresOf(
  model: LikelihoodModel,
  pr: { author: string; failedAttempts?: number; changedLines?: number; headFailures?: number },
): Record<FeatureName, number> {
  const [queueResolved, queueKicked] = model.queue;
  const base = (queueKicked + 1) / (queueResolved + 20);
  const [resolved, kicked] = model.authors[pr.author] ?? [0, 0];
  const rate = (kicked + PRIOR_PRS * base) / (resolved + PRIOR_PRS);
  return {
    failedAttempts: Math.min(pr.failedAttempts ?? 0, 5),
    authorRate: logit(Math.min(0.99, Math.max(0.01, rate))) - logit(Math.min(0.99, Math.max(0.01, base))),
    // Centred on 64 lines, one unit per factor of 4: 0 when the host does not say.
    size: pr.changedLines === undefined ? 0 : (Math.log2(1 + pr.changedLines) - 6) / 2,
    headFailures: Math.min(Math.log2(1 + (pr.headFailures ?? 0)), 5),
  };
}

function vector(features: Record<FeatureName, number>): number[] {
  // Estimates stored before a feature existed lack it: 0.
  return [1, ...FEATURE_NAMES.map((name) => features[name] ?? 0)];
}

export function predict(model: LikelihoodModel, features: Record<FeatureName, number>): Likelihood {
  const x = vector(features);
  const weights = weightsOf(model);
  const z = x.reduce((sum, value, k) => sum + value * (weights[k] ?? 0), 0);
  return { p: sigmoid(z), features };
}

/**
 * Learns from a resolved PR, and its author's history: one Newton step (online iteratively reweighted least squares:
 * the gradient of this outcome scaled by the inverse of the curvature of every outcome so far). Plain gradient descent
 * with a fixed rate learnt too slowly from the few failures of a queue (one PR in twenty): on the speculation bench
 * its estimates isolated PRs of which 7% were broken, this step's 15%.
 */
export function train(model: LikelihoodModel, author: string, seen: Likelihood | undefined, kicked: boolean): void {
  if (seen !== undefined) {
    const x = vector(seen.features);
    const p = predict(model, seen.features).p;
    const n = x.length;
    // The curvature of the log-likelihood so far (a ridge prior of PRIOR_PRECISION on each weight to start from).
    const stored = model.precision?.length === n * n ? model.precision : undefined;
    const h = stored ?? Array.from({ length: n * n }, (_, k) => (k % (n + 1) === 0 ? PRIOR_PRECISION : 0));
    const curvature = Math.max(p * (1 - p), MIN_CURVATURE);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) h[i * n + j] = (h[i * n + j] ?? 0) + curvature * (x[i] ?? 0) * (x[j] ?? 0);
    model.precision = h;
    const step = solve(
      h,
      x.map((value) => value * ((kicked ? 1 : 0) - p)),
      n,
    );
    model.weights = weightsOf(model).map((w, k) => w + (step[k] ?? 0));
    model.trained++;
  }
  const stats = (model.authors[author] ??= [0, 0]);
  stats[0]++;
  model.queue[0]++;
  if (kicked) {
    stats[1]++;
    model.queue[1]++;
  }
}

/** For people: the estimate and what it rests on. */
export function explain(likelihood: Likelihood, model: LikelihoodModel): string {
  const weights = weightsOf(model);
  const parts = FEATURE_NAMES.map(
    (name, k) => `${name} ${(likelihood.features[name] ?? 0).toFixed(2)} (×${(weights[k + 1] ?? 0).toFixed(2)})`,
  );
  return `failure likelihood ${(likelihood.p * 100).toFixed(1)}% from ${parts.join(', ')}; trained on ${model.trained} PRs`;
}
