/**
 * GREENLINE_PROVIDER=local (the default): bare repositories in the data folder, and their built-in CI
 * (GREENLINE_LOCAL_CI: engine/providers/local/), declared for the registry (../index.ts).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { defineHost, NOTHING_INBOUND } from '../hostPlugin.js';

/** "1" (or on, true) or "jobs=N". */
export function parseLocalCi(text: string): { jobs?: number } {
  const lower = text.trim().toLowerCase();
  if (lower === '1' || lower === 'on' || lower === 'true') return {};
  const match = /^jobs=(\d{1,4})$/.exec(lower);
  if (match === null || Number(match[1]) < 1) throw new Error(`"${text}" is not 1 or jobs=N (N at least 1)`);
  return { jobs: Number(match[1]) };
}

export const localHostPlugin = defineHost<{ localCi?: { jobs?: number } }>({
  name: 'local',
  summary: 'local (bare repositories in the data folder; the default)',
  environment: {
    GREENLINE_LOCAL_CI:
      'the built-in CI of the local host, running the ci: commands of .greenline.yaml: "1", or "jobs=N" (default: off)',
  },
  schema: (z) => ({ GREENLINE_LOCAL_CI: z.string().optional() }),
  onlyWith: { GREENLINE_LOCAL_CI: 'it runs commands on real repositories' },

  configure(values, common) {
    const text = values.GREENLINE_LOCAL_CI as string | undefined;
    if (text === undefined || text === '0') return {};
    let localCi: { jobs?: number };
    try {
      localCi = parseLocalCi(text);
    } catch (error) {
      throw new Error(`GREENLINE_LOCAL_CI: ${(error as Error).message}`);
    }
    if (common.simCi) throw new Error('GREENLINE_LOCAL_CI and GREENLINE_SIM_CI are both on; choose one CI');
    return { localCi };
  },

  /** The local host needs git 2.38 or later (`git merge-tree --write-tree`); say so at the start, not on the first PR. */
  async preflight() {
    let version: string;
    try {
      version = (await promisify(execFile)('git', ['--version'])).stdout.trim();
    } catch {
      throw new Error(
        'GREENLINE_PROVIDER=local needs git on the PATH (2.38 or later); install it, or set GREENLINE_PROVIDER=sim',
      );
    }
    const [major = 0, minor = 0] = (/(\d+)\.(\d+)/.exec(version) ?? []).slice(1).map(Number);
    if (major < 2 || (major === 2 && minor < 38)) {
      throw new Error(
        `GREENLINE_PROVIDER=local needs git 2.38 or later (${version} found); upgrade it, or set GREENLINE_PROVIDER=sim`,
      );
    }
  },

  async open({ localCi: settings }, context) {
    const [{ LocalGitHost }, { LocalCi }] = await Promise.all([
      import('../../engine/providers/local/localGitHost.js'),
      import('../../engine/providers/local/localCi.js'),
    ]);
    const gitHost = new LocalGitHost({ dataDir: context.dataDir });
    const localCi =
      settings === undefined
        ? undefined
        : new LocalCi({
            dataDir: context.dataDir,
            host: gitHost,
            ...(settings.jobs === undefined ? {} : { jobs: settings.jobs }),
          });
    const ci = localCi ?? context.simCi;
    return {
      gitHost,
      ...(ci === undefined ? {} : { ci }),
      ...(localCi === undefined ? {} : { ciLogs: localCi }),
      where: `repositories in ${join(context.dataDir, 'repos')}${localCi === undefined ? '' : ', built-in CI'}`,
      warnings: [],
      connect: () => NOTHING_INBOUND,
      // Commands still running are ended; they run again at the next start.
      close: async () => await localCi?.close(),
    };
  },
});
