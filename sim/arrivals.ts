/**
 * The workload, drawn once from the seed and shared by every configuration and baseline: when each PR arrives, whether
 * it truly breaks the build, its priority and its impacted targets.
 */
import { Random, cumulativeOf } from './random.js';
import { PRIORITY_NAMES, type PriorityName, type Scenario } from './scenario.js';
import { TargetDrawer, type ImpactedTargets } from './targets.js';
import { FeatureDrawer } from './features.js';

export interface Arrival {
  /** PR number: 1, 2, 3… in order of arrival. */
  number: number;
  /** Milliseconds after the start of the simulation. */
  at: number;
  /** Every run containing it fails. */
  broken: boolean;
  /** Absent: submitted with the queue's default priority. */
  priority?: PriorityName;
  /** Absent when the scenario has no targets. */
  targets?: ImpactedTargets;
  /** With the scenario's `predictiveFeatures`: its author and changed lines, as the git host reports them. */
  author?: string;
  changedLines?: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The arrival rate (per hour) at a time (ms since midnight UTC of the first day). */
export function rateAt(scenario: Pick<Scenario, 'arrivalsPerHour' | 'dailyCycle'>, at: number): number {
  const cycle = scenario.dailyCycle;
  if (cycle === undefined) return scenario.arrivalsPerHour;
  const hour = (at % DAY_MS) / HOUR_MS;
  return scenario.arrivalsPerHour * (1 + cycle.amplitude * Math.cos((2 * Math.PI * (hour - cycle.peakHour)) / 24));
}

/**
 * A Poisson process over `hours`, non-homogeneous with a daily cycle (by thinning: candidates at the peak rate, each
 * kept with probability rate / peak rate). The simulation starts at midnight UTC.
 */
export function drawArrivals(scenario: Scenario, seed: number): Arrival[] {
  const times = new Random(seed, 'arrivals');
  const thinning = new Random(seed, 'daily-cycle');
  const breakage = new Random(seed, 'broken');
  const priorities = new Random(seed, 'priority');
  const drawer =
    scenario.targets === undefined ? undefined : new TargetDrawer(scenario.targets, new Random(seed, 'targets'));
  const mix = scenario.priorityMix;
  const priorityWeights = mix === undefined ? undefined : cumulativeOf(PRIORITY_NAMES.map((name) => mix[name] ?? 0));

  const features =
    scenario.predictiveFeatures === undefined
      ? undefined
      : new FeatureDrawer(scenario.predictiveFeatures, new Random(seed, 'features'));
  const peakPerMs = (scenario.arrivalsPerHour * (1 + (scenario.dailyCycle?.amplitude ?? 0))) / HOUR_MS;
  const end = scenario.hours * HOUR_MS;
  const arrivals: Arrival[] = [];
  for (let at = times.exponential(peakPerMs); at < end; at += times.exponential(peakPerMs)) {
    if (scenario.dailyCycle !== undefined && !thinning.chance(rateAt(scenario, at) / HOUR_MS / peakPerMs)) continue;
    const arrival: Arrival = {
      number: arrivals.length + 1,
      at: Math.round(at),
      broken: breakage.chance(scenario.brokenRate),
    };
    if (priorityWeights !== undefined)
      arrival.priority = PRIORITY_NAMES[priorities.weighted(priorityWeights)] as PriorityName;
    if (drawer !== undefined) arrival.targets = drawer.draw();
    if (features !== undefined) Object.assign(arrival, features.draw(arrival.broken));
    arrivals.push(arrival);
  }
  return arrivals;
}
