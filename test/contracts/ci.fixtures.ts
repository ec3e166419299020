/**
 * The CI systems of the contract (engine/providers/types.ts): the synthetic CI on a virtual clock, and the built-in
 * runner of the local provider on a real repository, whose one status `check` runs the test branch's check.sh.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalCi } from '../../engine/providers/local/localCi.js';
import { LocalGitHost } from '../../engine/providers/local/localGitHost.js';
import { SIM_CI_CONTEXT, SimCi, simCiPlan, type SimCiOptions } from '../../engine/providers/simCi.js';
import type { CI, CiRun } from '../../engine/providers/types.js';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';
import { Clone } from '../git/helpers.js';

export type Outcome = 'success' | 'failure' | 'hold';

export interface CiFixture {
  /** The CI now (another instance after `restart`). */
  ci(): CI;
  /** The statuses the CI reports on every run. */
  contexts: string[];
  /** A run whose statuses end in `outcome`; `hold` never ends until the run is stopped. */
  run(id: string, outcome: Outcome): Promise<CiRun>;
  /** Lets the CI work until `done` holds: the synthetic CI's clock moves, the runner's commands run. */
  until(done: () => boolean): Promise<void>;
  /** Lets everything the CI has in hand happen (time passes; commands, held ones too, end): nothing reports after it. */
  quiesce(): Promise<void>;
  /** A new instance over the same state, as when the service starts again. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const START = Date.parse('2026-11-22T12:00:00.000Z');

function simFixture(): CiFixture {
  const options: SimCiOptions = { passRate: 0.5, medianMinutes: 2, p90Minutes: 4, seed: 7 };
  let scheduler = new VirtualScheduler(START);
  let ci = new SimCi(scheduler, options);
  return {
    ci: () => ci,
    contexts: [SIM_CI_CONTEXT],
    async run(id, outcome) {
      // The synthetic CI's outcome is a function of the run id: take the first id with the outcome asked for.
      let runId = id;
      for (let k = 0; outcome !== 'hold' && simCiPlan(options, runId).passes !== (outcome === 'success'); k++)
        runId = `${id}-${k}`;
      return {
        org: 'acme',
        repo: REPO,
        runId,
        branch: `greenline/${runId}`,
        sha: 'f'.repeat(40),
        startedAt: scheduler.now(),
      };
    },
    async until(done) {
      for (let minute = 0; !done() && minute < 24 * 60; minute++) scheduler.advanceBy(60_000);
    },
    async quiesce() {
      scheduler.advanceBy(24 * 60 * 60_000);
    },
    async restart() {
      scheduler.clear();
      scheduler = new VirtualScheduler(scheduler.now());
      ci = new SimCi(scheduler, options);
    },
    async close() {
      scheduler.clear();
    },
  };
}

const CHECKS: Record<Outcome, (gate: string) => string> = {
  success: () => 'exit 0\n',
  failure: () => 'echo broken >&2; exit 1\n',
  hold: (gate) => `while [ ! -f '${gate}' ]; do sleep 0.05; done\n`,
};

async function localFixture(): Promise<CiFixture> {
  const root = await mkdtemp(join(tmpdir(), 'greenline-ci-contract-'));
  const dataDir = join(root, 'data');
  const gate = join(root, 'gate');
  const host = new LocalGitHost({ dataDir });
  await host.prepareRepository(REPO, 'main');
  const clone = await Clone.create(join(root, 'clone'), host.repositoryPath(REPO));
  const base = await clone.commit('Initial', { '.greenline.yaml': 'ci:\n  check: sh check.sh\n' });
  await clone.pushBase();
  const errors: unknown[] = [];
  const make = () =>
    new LocalCi({ dataDir, host, jobs: 2, killGraceMs: 1_000, onError: (_message, error) => errors.push(error) });
  let ci = make();
  let pr = 0;
  return {
    ci: () => ci,
    contexts: ['check'],
    async run(id, outcome) {
      pr += 1;
      const sha = await clone.pr(pr, base, { 'check.sh': CHECKS[outcome](gate) });
      const built = await host.buildTestBranch({
        repo: REPO,
        targetBranch: 'main',
        runId: id,
        baseSha: base,
        pullRequests: [{ number: pr, sha }],
        mergeMethod: 'merge_commit',
      });
      if (!built.ok) throw new Error(built.reason);
      return {
        org: 'acme',
        repo: REPO,
        runId: id,
        branch: built.branch,
        sha: built.sha,
        startedAt: Date.now(),
        baseSha: base,
      };
    },
    async until(done) {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
    },
    async quiesce() {
      // Held commands end too: a run that was not stopped would report then.
      await writeFile(gate, '');
      await ci.idle();
    },
    async restart() {
      await ci.close();
      ci = make();
    },
    async close() {
      await writeFile(gate, '');
      await ci.close();
      await rm(root, { recursive: true, force: true });
      if (errors.length > 0) throw new Error(`the runner reported errors: ${errors.map(String).join('; ')}`);
    },
  };
}

export const CIS: Record<string, () => Promise<CiFixture>> = {
  sim: async () => simFixture(),
  local: localFixture,
};
