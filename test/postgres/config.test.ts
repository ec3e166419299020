/** GREENLINE_STORE and GREENLINE_LEASE_MS: checked before anything starts. */
import { expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../cli/config.js';

test('GREENLINE_STORE selects PostgreSQL with a lease time; bad values stop the start', () => {
  expect(loadConfig({}).postgres).toBeUndefined();
  expect(loadConfig({ GREENLINE_STORE: 'postgres://u:p@db:5432/greenline' }).postgres).toEqual({
    url: 'postgres://u:p@db:5432/greenline',
    leaseMs: 5000,
  });
  expect(
    loadConfig({ GREENLINE_STORE: 'postgresql://db/greenline', GREENLINE_LEASE_MS: '1500' }).postgres?.leaseMs,
  ).toBe(1500);
  expect(() => loadConfig({ GREENLINE_STORE: 'mysql://db/greenline' })).toThrow(ConfigError);
  expect(() => loadConfig({ GREENLINE_STORE: 'postgres://db/greenline', GREENLINE_LEASE_MS: '10' })).toThrow(
    /GREENLINE_LEASE_MS/,
  );
});
