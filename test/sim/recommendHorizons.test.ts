/** `greenline sim --recommend` on a busy workload (issue 28): its horizons are bounded by arrivals, not by hours alone. */
import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { formatRecommendation, type Evaluation } from '../../sim/recommend.js';
import { FINAL_ARRIVALS, horizonsOf, SCREEN_ARRIVALS } from '../../sim/recommendHorizons.js';
import { parseScenario, parseScenarioText } from '../../sim/scenario.js';

const busy = parseScenario({
  name: 'busy',
  hours: 24,
  arrivalsPerHour: 200,
  ci: { medianMinutes: 30, p90Minutes: 60 },
  brokenRate: 0.05,
  flakeRate: 0.02,
  targets: { count: 1000, perPr: 3, allShare: 0.01 },
  configs: [{ name: 'any' }],
});

describe('--recommend horizons', () => {
  test('a busy workload is screened on a bounded number of arrivals, and its finalists on a bounded number', () => {
    const { screenHours, finalHours } = horizonsOf(busy);
    // 8 h (a third of 24) would screen 1,600 PRs per setup: four slow runs (4 h) is the floor, above 600 arrivals (3 h).
    expect(screenHours).toBe(4);
    expect(screenHours * busy.arrivalsPerHour).toBeGreaterThanOrEqual(SCREEN_ARRIVALS);
    expect(finalHours).toBe(FINAL_ARRIVALS / busy.arrivalsPerHour);
    expect(finalHours).toBeLessThan(busy.hours);
  });

  test('a workload of a few PRs an hour keeps the horizons it had: a third of its hours (at least 6), and all of them', async () => {
    const text = await readFile(new URL('../../sim/examples/monorepo.json', import.meta.url), 'utf8');
    expect(horizonsOf(parseScenarioText(text, 'monorepo.json'))).toEqual({ screenHours: 24, finalHours: 72 });
    expect(horizonsOf({ hours: 4, arrivalsPerHour: 8, ci: { medianMinutes: 15, p90Minutes: 20 } })).toEqual({
      screenHours: 4,
      finalHours: 4,
    });
  });

  test('the recommendation says when its finalists ran less than the whole scenario', () => {
    const best: Evaluation = {
      setup: {
        mode: 'parallel',
        concurrency: 200,
        batch: 'off',
        antiFlake: true,
        optimizationMode: 'off',
        adaptiveWindow: false,
        parallelBases: 'direct',
      },
      p50: 60,
      runsPerMerge: 2.1,
      mergedPerHour: 170,
      saturated: false,
      keepsUp: true,
      oracleMergedPerHour: 180,
    };
    const text = formatRecommendation(
      { best, runnersUp: [], overBudget: 0, evaluated: 30, screenHours: 4, finalHours: 12, hours: 24 },
      undefined,
    );
    expect(text).toContain(
      "(screened on the first 4 h of arrivals, the finalists on the first 12 h of the scenario's 24)",
    );
    expect(
      formatRecommendation(
        { best, runnersUp: [], overBudget: 0, evaluated: 30, screenHours: 4, finalHours: 4, hours: 4 },
        undefined,
      ),
    ).not.toContain('screened on');
  });
});
