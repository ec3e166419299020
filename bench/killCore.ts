/**
 * kill -9 under load (issue 19): a `greenline serve` child process (simulated git host and CI) is killed with
 * SIGKILL at random moments while clients submit, cancel and report statuses; after each restart, every write it
 * acknowledged is there exactly once (an acknowledged submit is a PR with one `submitted` line in its timeline, an
 * acknowledged cancel a CANCELLED PR), and no PR merged twice. At the end every queue's event log, exported from the
 * data folder, replays without divergence. The suite runs 2 kills (test/hardening/kill.test.ts); `npm run
 * bench:kill` runs 100.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportEventLog, replayEventLog } from '../engine/runtime/eventLog.js';
import { openLmdbStore } from '../engine/store/index.js';

const ENTRY = new URL('../cli/greenline.ts', import.meta.url).pathname;
const TOKEN = 'kill-token-0123456789abcdef';
const QUEUES = 3;
const CLIENTS = 6;
const repoOf = (q: number) => ({ host: 'github.com', owner: 'kill', name: `repo${q}` });

export interface KillReport {
  kills: number;
  submits: number;
  cancels: number;
  statuses: number;
  lost: string[];
  duplicated: string[];
  mergedTwice: string[];
  replayed: number;
  divergences: string[];
  restartMs: number[];
}

interface Server {
  child: ChildProcess;
  url: string;
}

async function start(dir: string): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      GREENLINE_DATA: dir,
      GREENLINE_PROVIDER: 'sim',
      GREENLINE_SIM_CI: 'pass=0.85,median=0.01,p90=0.03,seed=7',
      GREENLINE_API_TOKENS: `kill:${TOKEN}`,
      GREENLINE_RATE_LIMIT: '10000000',
      GREENLINE_SCRAPE_RATE_LIMIT: '10000000',
      GREENLINE_LOG_LEVEL: 'silent',
      GREENLINE_RETENTION_SWEEP: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.resume();
  for (const deadline = Date.now() + 60_000; ; ) {
    const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
    if (match) return { child, url: match[1] as string };
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not start: ${out}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function kill(server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGKILL');
  await exited;
}

async function post(server: Server, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}/v1/${path}`, {
    method: 'POST',
    headers: { 'x-api-token': TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

const random = (n: number) => Math.floor(Math.random() * n);

export async function killUnderLoad(kills: number, log: (line: string) => void = () => undefined): Promise<KillReport> {
  const dir = mkdtempSync(join(tmpdir(), 'greenline-kill-'));
  const report: KillReport = {
    kills: 0,
    submits: 0,
    cancels: 0,
    statuses: 0,
    lost: [],
    duplicated: [],
    mergedTwice: [],
    replayed: 0,
    divergences: [],
    restartMs: [],
  };
  /** Acknowledged writes: `q#number` → 'submitted' | 'cancelled'. */
  const acked = new Map<string, 'submitted' | 'cancelled'>();
  let next = 1;
  let server = await start(dir);
  try {
    for (let q = 0; q < QUEUES; q++) {
      const created = await post(server, 'createQueue', {
        repo: repoOf(q),
        targetBranch: 'main',
        concurrency: 3,
        batch: q === 2,
        batchingMinSize: 3,
      });
      if (created.status !== 200) throw new Error(`createQueue: ${created.status} ${JSON.stringify(created.body)}`);
    }
    const client = async (live: () => boolean) => {
      while (live()) {
        const q = random(QUEUES);
        const base = { repo: repoOf(q), targetBranch: 'main' };
        const mine = [...acked].filter(([key, what]) => what === 'submitted' && key.startsWith(`${q}#`));
        const roll = random(100);
        try {
          if (roll < 55 || mine.length === 0) {
            const number = next++;
            const answer = await post(server, 'submitPullRequest', { ...base, pr: { number } });
            if (answer.status === 200) acked.set(`${q}#${number}`, 'submitted');
          } else if (roll < 75) {
            const [key] = mine[random(mine.length)] as [string, string];
            const answer = await post(server, 'cancelPullRequest', {
              ...base,
              pr: { number: Number(key.split('#')[1]) },
            });
            if (answer.status === 200) acked.set(key, 'cancelled');
          } else {
            const [key] = mine[random(mine.length)] as [string, string];
            const pr = await post(server, 'getSubmittedPullRequest', {
              ...base,
              pr: { number: Number(key.split('#')[1]) },
            });
            const runId = pr.body?.testRunId;
            if (pr.status !== 200 || !runId) continue;
            const run = await post(server, 'getMergeQueueTestingDetails', { ...base, testRunId: runId });
            const sha = run.body?.testBranchSha;
            if (run.status !== 200 || !sha) continue;
            const status = await post(server, 'setCommitStatus', {
              repo: repoOf(q),
              sha,
              context: 'greenline/sim-ci',
              state: random(10) < 8 ? 'success' : 'failure',
            });
            if (status.status === 200) report.statuses++;
          }
        } catch {
          // The server died under the request: nothing was acknowledged.
        }
      }
    };
    for (let round = 0; round < kills; round++) {
      let running = true;
      const clients = Array.from({ length: CLIENTS }, () => client(() => running));
      await new Promise((resolve) => setTimeout(resolve, 300 + random(1500)));
      await kill(server);
      running = false;
      await Promise.all(clients);
      report.kills++;
      const restarted = performance.now();
      server = await start(dir);
      report.restartMs.push(performance.now() - restarted);
      await verify(server, acked, report);
      log(
        `kill ${report.kills}: ${acked.size} PRs acknowledged, lost ${report.lost.length}, duplicated ${report.duplicated.length}, merged twice ${report.mergedTwice.length}, restart ${report.restartMs.at(-1)?.toFixed(0)} ms`,
      );
    }
    report.submits = acked.size;
    report.cancels = [...acked.values()].filter((what) => what === 'cancelled').length;
    await kill(server);
    const store = openLmdbStore({ dir });
    try {
      for (let q = 0; q < QUEUES; q++) {
        const result = replayEventLog(
          exportEventLog(store, { org: 'kill', repo: repoOf(q), branch: 'main' }, 'kill bench'),
        );
        report.replayed += result.replayed;
        if (result.divergence !== null)
          report.divergences.push(`repo${q}: ${JSON.stringify(result.divergence).slice(0, 300)}`);
      }
    } finally {
      await store.close();
    }
  } finally {
    await kill(server);
    // GREENLINE_KEEP_DATA=1 keeps the data folder of a run that found a divergence, to look into it.
    if (process.env.GREENLINE_KEEP_DATA === '1' && report.divergences.length > 0) log(`data folder kept: ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
  return report;
}

async function verify(
  server: Server,
  acked: Map<string, 'submitted' | 'cancelled'>,
  report: KillReport,
): Promise<void> {
  for (const [key, what] of acked) {
    const [q, number] = key.split('#').map(Number) as [number, number];
    const answer = await post(server, 'getSubmittedPullRequest', {
      repo: repoOf(q),
      targetBranch: 'main',
      pr: { number },
      includeTimeline: true,
    });
    if (answer.status !== 200) {
      report.lost.push(`${key} (${answer.status})`);
      continue;
    }
    const events = (answer.body.timeline as { event: string }[]).map((entry) => entry.event);
    if (events.filter((event) => event === 'submitted' || event === 'resubmitted').length !== 1)
      report.duplicated.push(`${key}: ${events.join(',')}`);
    if (events.filter((event) => event === 'merged').length > 1) report.mergedTwice.push(`${key}: ${events.join(',')}`);
    if (what === 'cancelled' && answer.body.state !== 'CANCELLED')
      report.lost.push(`${key} cancel (state ${answer.body.state})`);
  }
}
