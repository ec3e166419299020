/** Scenario files: defaults, and errors that name the field at fault. */
import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { parseScenario, parseScenarioText, ScenarioError, settingsOf } from '../../sim/scenario.js';

const valid = {
  name: 'monorepo',
  hours: 72,
  arrivalsPerHour: 12,
  ci: { medianMinutes: 30, p90Minutes: 50 },
  brokenRate: 0.05,
  flakeRate: 0.02,
  targets: { count: 200, perPr: 3, allShare: 0.01 },
  configs: [
    { name: 'predictive4', concurrency: 4 },
    { name: 'batch8', batch: true, batchingMinSize: 8, concurrency: 2 },
  ],
};

function issuesOf(value: unknown): { path: string; message: string }[] {
  try {
    parseScenario(value);
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return (error as ScenarioError).issues;
  }
  throw new Error('the scenario was accepted');
}

describe('scenarios', () => {
  test("the issue's example is valid, with defaults filled in", () => {
    const scenario = parseScenario(valid);
    expect(scenario).toMatchObject({
      seed: 1,
      drainHours: 24,
      saturationDepth: 500,
      targets: { count: 200, perPr: 3, allShare: 0.01, skew: 1 },
    });
    expect(settingsOf(scenario.configs[1] as (typeof scenario.configs)[number])).toEqual({
      batch: true,
      batchingMinSize: 8,
      concurrency: 2,
    });
  });

  test('the bundled example is valid', async () => {
    const scenario = parseScenarioText(
      await readFile(new URL('../../sim/examples/monorepo.json', import.meta.url), 'utf8'),
    );
    expect(scenario.configs.map((config) => config.name)).toContain('batch8');
  });

  test('optional planner fields: daily cycle and priority mix', () => {
    const scenario = parseScenario({ ...valid, dailyCycle: { amplitude: 0.5 }, priorityMix: { high: 1, medium: 9 } });
    expect(scenario.dailyCycle).toEqual({ amplitude: 0.5, peakHour: 14 });
    expect(scenario.priorityMix).toEqual({ high: 1, medium: 9 });
  });

  test('a configuration may set the largest batch (batchingMaxSize), a positive integer', () => {
    const scenario = parseScenario({
      ...valid,
      configs: [{ name: 'grow', batch: true, batchingMinSize: 4, batchingMaxSize: 12 }],
    });
    expect(settingsOf(scenario.configs[0] as (typeof scenario.configs)[number])).toEqual({
      batch: true,
      batchingMinSize: 4,
      batchingMaxSize: 12,
    });
    expect(issuesOf({ ...valid, configs: [{ name: 'a', batchingMaxSize: 0 }] }).map((issue) => issue.path)).toEqual([
      'configs[0].batchingMaxSize',
    ]);
  });

  test('parallelBases: transitive or direct, anything else named', () => {
    const targets = { count: 10, perPr: 2 };
    const config = (parallelBases: string) => ({
      ...valid,
      targets,
      configs: [{ name: 'p', mode: 'parallel', parallelBases }],
    });
    expect(parseScenario(config('direct')).configs[0]).toMatchObject({ parallelBases: 'direct' });
    expect(() => parseScenario(config('closure'))).toThrow(/configs\[0\]\.parallelBases/);
  });

  test('each problem is reported with the path of its field', () => {
    const issues = issuesOf({
      ...valid,
      hours: -1,
      ci: { medianMinutes: 30, p90Minutes: 20 },
      brokenRate: 1,
      configs: [
        { name: 'a', concurrency: 0 },
        { name: 'b', batch: 'yes' },
        { name: 'a', concurency: 2 },
      ],
    });
    const paths = issues.map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'hours',
        'ci.p90Minutes',
        'brokenRate',
        'configs[0].concurrency',
        'configs[1].batch',
        'configs[2]',
      ]),
    );
    expect(issues.find((issue) => issue.path === 'configs[2]')?.message).toMatch(/concurency/);
  });

  test('duplicate configuration names, parallel mode without targets, missing fields', () => {
    const { targets: _targets, ...withoutTargets } = valid;
    const issues = issuesOf({ ...withoutTargets, configs: [{ name: 'x', mode: 'parallel' }, { name: 'x' }] });
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'configs[0].mode', message: expect.stringMatching(/targets/) },
        { path: 'configs[1].name', message: expect.stringMatching(/duplicate/) },
      ]),
    );
    expect(issuesOf({ name: 'x' }).map((issue) => issue.path)).toEqual(
      expect.arrayContaining(['hours', 'arrivalsPerHour', 'ci', 'brokenRate', 'flakeRate', 'configs']),
    );
    expect(issuesOf({ ...valid, configs: [] }).map((issue) => issue.path)).toEqual(['configs']);
    expect(issuesOf({ ...valid, targets: { count: 2, perPr: 3 } }).map((issue) => issue.path)).toEqual([
      'targets.perPr',
    ]);
  });

  test("the baselines' names are reserved; names differ in more than case (they name files)", () => {
    const issues = issuesOf({
      ...valid,
      configs: [{ name: 'singleQueue' }, { name: 'ORACLE' }, { name: 'fast' }, { name: 'Fast' }, { name: 'oracle2' }],
    });
    expect(issues).toEqual([
      { path: 'configs[0].name', message: expect.stringMatching(/"singleQueue" is the name of a baseline/) },
      { path: 'configs[1].name', message: expect.stringMatching(/"ORACLE" is the name of a baseline/) },
      { path: 'configs[3].name', message: expect.stringMatching(/duplicate configuration name "Fast"/) },
    ]);
    expect(issuesOf({ ...valid, saturationDepth: 0 }).map((issue) => issue.path)).toEqual(['saturationDepth']);
    expect(parseScenario({ ...valid, saturationDepth: 40 }).saturationDepth).toBe(40);
  });

  test('the message lists every problem; text that is not JSON is a ScenarioError too', () => {
    expect(() => parseScenarioText('{"name": ', 'bad.json')).toThrow(/bad\.json is not JSON/);
    expect(() => parseScenario({ ...valid, flakeRate: -0.1 }, 'x.json')).toThrow(
      /x\.json is not a valid scenario:\n {2}flakeRate: /,
    );
    expect(issuesOf([])).toEqual([{ path: '(scenario)', message: expect.any(String) }]);
  });
});
