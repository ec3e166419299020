/** GREENLINE_PROVIDER=github: what it needs, and the commands people write. */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../cli/config.js';
import { parseCommand } from '../../engine/providers/github/commands.js';
import { stateOfConclusion } from '../../engine/providers/github/webhookReceiver.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('GitHub configuration', () => {
  test("GREENLINE_PROVIDER=github refuses to start without the App's id, key and webhook secret", () => {
    expect(() => loadConfig({ GREENLINE_PROVIDER: 'github' })).toThrow(ConfigError);
    expect(() => loadConfig({ GREENLINE_PROVIDER: 'github' })).toThrow(
      /needs GREENLINE_GITHUB_APP_ID, GREENLINE_GITHUB_PRIVATE_KEY_FILE, GREENLINE_GITHUB_WEBHOOK_SECRET/,
    );
    expect(() => loadConfig({ GREENLINE_PROVIDER: 'github', GREENLINE_GITHUB_APP_ID: 'abc' })).toThrow(
      /an App id is a number/,
    );
    expect(() =>
      loadConfig({
        GREENLINE_PROVIDER: 'github',
        GREENLINE_GITHUB_APP_ID: '1',
        GREENLINE_GITHUB_PRIVATE_KEY_FILE: '/nonexistent.pem',
        GREENLINE_GITHUB_WEBHOOK_SECRET: 's',
      }),
    ).toThrow(/cannot read \/nonexistent.pem/);
  });

  test('a complete configuration; Enterprise Server queues use its host name', async () => {
    dir = await mkdtemp(join(tmpdir(), 'greenline-github-config-'));
    const keyFile = join(dir, 'app.pem');
    await writeFile(
      keyFile,
      generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
    );
    const env = {
      GREENLINE_PROVIDER: 'github',
      GREENLINE_GITHUB_APP_ID: '123',
      GREENLINE_GITHUB_PRIVATE_KEY_FILE: keyFile,
      GREENLINE_GITHUB_WEBHOOK_SECRET: 's',
    };
    expect(loadConfig(env).github).toMatchObject({
      appId: '123',
      apiUrl: 'https://api.github.com',
      hostName: 'github.com',
      webhookSecret: 's',
    });
    expect(loadConfig({ ...env, GREENLINE_GITHUB_API_URL: 'https://git.example.com/api/v3/' }).github).toMatchObject({
      apiUrl: 'https://git.example.com/api/v3',
      hostName: 'git.example.com',
    });
    expect(
      loadConfig({
        ...env,
        GREENLINE_GITHUB_API_URL: 'https://api.git.example.com',
        GREENLINE_GITHUB_HOST: 'git.example.com',
      }).github?.hostName,
    ).toBe('git.example.com');
    expect(() => loadConfig({ ...env, GREENLINE_GITHUB_HOST: 'https://x' })).toThrow(
      /GREENLINE_GITHUB_HOST: a host name/,
    );
    await writeFile(keyFile, 'not a key');
    expect(() => loadConfig(env)).toThrow(/is not a PEM private key/);
  });
});

describe('/greenline commands', () => {
  test('merge with its options, cancel, and what is not a command', () => {
    expect(parseCommand('/greenline merge')).toEqual({ kind: 'merge', noBatch: false });
    expect(parseCommand('LGTM\n  /greenline merge --priority urgent --no-batch')).toEqual({
      kind: 'merge',
      priority: 'urgent',
      noBatch: true,
    });
    expect(parseCommand('/greenline merge --priority=7')).toEqual({ kind: 'merge', priority: 7, noBatch: false });
    expect(parseCommand('/greenline cancel')).toEqual({ kind: 'cancel' });
    expect(parseCommand('please /greenline merge')).toBeUndefined();
    expect(parseCommand('/greenlinemerge')).toBeUndefined();
    expect(parseCommand('/greenline merge --priority 256')).toMatchObject({ kind: 'invalid' });
    expect(parseCommand('/greenline merge --fast')).toMatchObject({
      kind: 'invalid',
      message: expect.stringContaining('--fast'),
    });
    expect(parseCommand('/greenline rebase')).toMatchObject({ kind: 'invalid' });
    expect(parseCommand('/greenline cancel now')).toMatchObject({ kind: 'invalid' });
  });

  test('check conclusions as commit states', () => {
    expect(['success', 'neutral', 'skipped'].map(stateOfConclusion)).toEqual(['success', 'success', 'success']);
    expect(['failure', 'timed_out', 'action_required', 'startup_failure', 'stale'].map(stateOfConclusion)).toEqual(
      Array(5).fill('failure'),
    );
    expect(stateOfConclusion('cancelled')).toBe('error');
    expect(stateOfConclusion(null)).toBe('pending');
  });
});
