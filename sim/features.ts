/**
 * Features that predict a PR's failure (the scenario's `predictiveFeatures`), drawn after its breakage so that the
 * breakage rate stays the scenario's: a broken PR comes from a risky author with probability `riskyShare` (else from
 * any author), a good one from any author; changed lines are log-normal (median 60, σ 1), a broken PR's median
 * multiplied by `sizeFactor`. What a model can learn from them is then bounded, as in life.
 */
import type { Random } from './random.js';
import type { Scenario } from './scenario.js';

const MEDIAN_LINES = 60;

export class FeatureDrawer {
  constructor(
    private readonly features: NonNullable<Scenario['predictiveFeatures']>,
    private readonly random: Random,
  ) {}

  draw(broken: boolean): { author: string; changedLines: number } {
    const { authors, riskyAuthors, riskyShare, sizeFactor } = this.features;
    const risky = broken && this.random.chance(riskyShare);
    const author = Math.floor(this.random.next() * (risky ? riskyAuthors : authors));
    // Box–Muller: a standard normal from two uniforms.
    const normal = Math.sqrt(-2 * Math.log(1 - this.random.next())) * Math.cos(2 * Math.PI * this.random.next());
    const median = MEDIAN_LINES * (broken ? sizeFactor : 1);
    return { author: `dev${author}`, changedLines: Math.max(1, Math.round(median * Math.exp(normal))) };
  }
}

/**
 * The best estimate any model can make from the drawn features (Bayes' rule on how they are drawn, knowing the
 * breakage rate): the benchmarks' bound on what the engine's likelihood model could learn.
 */
export function bayesLikelihood(
  features: NonNullable<Scenario['predictiveFeatures']>,
  brokenRate: number,
  pr: { author?: string; changedLines?: number },
): number {
  const { authors, riskyAuthors, riskyShare, sizeFactor } = features;
  const index = Number((pr.author ?? '').replace(/^dev/, ''));
  const risky = Number.isInteger(index) && index < riskyAuthors;
  const authorRatio = ((risky ? riskyShare / riskyAuthors : 0) + (1 - riskyShare) / authors) / (1 / authors);
  const x = Math.log(pr.changedLines ?? MEDIAN_LINES);
  const good = Math.log(MEDIAN_LINES);
  const broken = good + Math.log(sizeFactor);
  const sizeRatio = Math.exp(((x - good) ** 2 - (x - broken) ** 2) / 2);
  const odds = (brokenRate / (1 - brokenRate)) * authorRatio * sizeRatio;
  return odds / (1 + odds);
}
