/** GREENLINE_PROVIDER (local by default) and GREENLINE_LOCAL_CI. */
import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../cli/config.js';
import { parseRepoConfig, RepoConfigError } from '../../engine/providers/local/repoConfig.js';
import { statusFileName } from '../../engine/providers/local/localCi.js';

describe('configuration', () => {
  test('the local git host is the default; sim stays selectable; the built-in CI is off unless asked', () => {
    expect(loadConfig({})).toMatchObject({ provider: 'local' });
    expect(loadConfig({}).localCi).toBeUndefined();
    expect(loadConfig({ GREENLINE_PROVIDER: 'sim', GREENLINE_SIM_CI: '1' })).toMatchObject({
      provider: 'sim',
      simCi: { passRate: 0.9 },
    });
    expect(loadConfig({ GREENLINE_LOCAL_CI: '1' }).localCi).toEqual({});
    expect(loadConfig({ GREENLINE_LOCAL_CI: 'jobs=3' }).localCi).toEqual({ jobs: 3 });
    expect(loadConfig({ GREENLINE_LOCAL_CI: '0' }).localCi).toBeUndefined();
  });

  test('contradictions and bad values stop the start with a message naming them', () => {
    expect(() => loadConfig({ GREENLINE_PROVIDER: 'github' })).toThrow(ConfigError);
    expect(() => loadConfig({ GREENLINE_LOCAL_CI: 'jobs=0' })).toThrow(/GREENLINE_LOCAL_CI/);
    expect(() => loadConfig({ GREENLINE_LOCAL_CI: 'maybe' })).toThrow(/GREENLINE_LOCAL_CI/);
    expect(() => loadConfig({ GREENLINE_PROVIDER: 'sim', GREENLINE_LOCAL_CI: '1' })).toThrow(
      /needs GREENLINE_PROVIDER=local/,
    );
    expect(() => loadConfig({ GREENLINE_LOCAL_CI: '1', GREENLINE_SIM_CI: '1' })).toThrow(/choose one CI/);
  });
});

describe('.greenline.yaml', () => {
  test('required_statuses and ci, in order; unknown keys ignored; an empty file sets nothing', () => {
    expect(
      parseRepoConfig(
        'required_statuses: [build, test, build]\nci:\n  test: npm test\n  build: npm run build\nowner: me\n',
      ),
    ).toEqual({
      requiredStatuses: ['build', 'test'],
      ci: [
        ['test', 'npm test'],
        ['build', 'npm run build'],
      ],
    });
    expect(parseRepoConfig('')).toEqual({ requiredStatuses: null, ci: [] });
    expect(parseRepoConfig('ci: {}\n')).toEqual({ requiredStatuses: null, ci: [] });
  });

  test('a file of the wrong shape is an error naming the key', () => {
    expect(() => parseRepoConfig('required_statuses: build\n')).toThrow(RepoConfigError);
    expect(() => parseRepoConfig('required_statuses: build\n')).toThrow(/required_statuses/);
    expect(() => parseRepoConfig('ci: {build: 3}\n')).toThrow(/ci\.build/);
    expect(() => parseRepoConfig('ci: [a\n')).toThrow(/not valid YAML/);
    expect(() => parseRepoConfig('- a\n- b\n')).toThrow(RepoConfigError);
  });

  test('status names become file names that are never paths', () => {
    expect(statusFileName('ci/build')).toBe('ci%2fbuild');
    expect(statusFileName('..')).toBe('%2e%2e');
    expect(statusFileName('x'.repeat(200))).toMatch(/^h-[0-9a-f]{64}$/);
  });
});
