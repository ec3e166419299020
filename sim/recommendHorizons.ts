/** How many hours of a scenario `greenline sim --recommend` screens its setups on, and runs its finalists on. */
import type { Scenario } from './scenario.js';

/**
 * The search's horizons. Screening runs the first third of the scenario (at least 6 h), but no more arrivals than
 * SCREEN_ARRIVALS (and at least SCREEN_CI_ROUNDS slow runs, so that a setup falling behind shows it); the finalists run
 * the whole scenario, but no more than FINAL_ARRIVALS arrivals (and at least three screening horizons). On a busy
 * workload each simulation costs about its arrivals: the busy monorepo of issue 28 (200 PRs/h for 24 h) screened
 * 8 h, 1,600 PRs per setup, and ran five finalists on 4,800, which did not finish in 2 h under load. A setup that
 * falls hopelessly behind stops early anyway: its queue grows past the scenario's `saturationDepth`.
 */
export const SCREEN_ARRIVALS = 600;
export const SCREEN_CI_ROUNDS = 4;
export const FINAL_ARRIVALS = 2_400;

export function horizonsOf(scenario: Pick<Scenario, 'hours' | 'arrivalsPerHour' | 'ci'>): {
  screenHours: number;
  finalHours: number;
} {
  const cap = Math.max((SCREEN_CI_ROUNDS * scenario.ci.p90Minutes) / 60, SCREEN_ARRIVALS / scenario.arrivalsPerHour);
  const screenHours = Math.min(scenario.hours, Math.max(Math.min(scenario.hours, 6), scenario.hours / 3), cap);
  const finalHours = Math.min(scenario.hours, Math.max(3 * screenHours, FINAL_ARRIVALS / scenario.arrivalsPerHour));
  return { screenHours, finalHours };
}
