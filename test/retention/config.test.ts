/** The retention settings from the environment (cli/config.ts): documented defaults, overrides, bad values refused. */
import { expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../cli/config.js';
import { DEFAULT_RETENTION } from '../../engine/retention/settings.js';

test('retention defaults to 90/90/30/30 days and an hourly sweep; each setting can be changed or turned off', () => {
  expect(loadConfig({}).retention).toEqual(DEFAULT_RETENTION);
  expect(DEFAULT_RETENTION).toMatchObject({
    prsDays: 90,
    eventsDays: 90,
    testResultsDays: 30,
    deliveriesDays: 30,
    sweepSeconds: 3600,
  });
  const config = loadConfig({
    GREENLINE_RETAIN_PRS_DAYS: '7',
    GREENLINE_RETAIN_EVENTS_DAYS: '0',
    GREENLINE_RETAIN_RESULTS_DAYS: '14',
    GREENLINE_RETAIN_DELIVERIES_DAYS: '2',
    GREENLINE_RETENTION_SWEEP: '0',
  });
  expect(config.retention).toMatchObject({
    prsDays: 7,
    eventsDays: 0,
    testResultsDays: 14,
    deliveriesDays: 2,
    sweepSeconds: 0,
  });
  expect(() => loadConfig({ GREENLINE_RETAIN_PRS_DAYS: '-1' })).toThrow(ConfigError);
  expect(() => loadConfig({ GREENLINE_RETAIN_RESULTS_DAYS: '1.5' })).toThrow(/GREENLINE_RETAIN_RESULTS_DAYS/);
});
