/**
 * `npm run bench:load`: the real service (a child process on loopback, simulated git host and CI) under mixed
 * traffic from autocannon — submits, cancels, getQueue, setImpactedTargets, JUnit uploads, metrics scrapes, one
 * autocannon instance per endpoint, all at once, on many queues — then a check that every acknowledged submit is
 * stored exactly once. Prints throughput and latency percentiles per endpoint, 5xx counts and the server's RSS.
 * In the same run, two baselines: a bare Fastify route (a child process answering `{}`) under the same connections,
 * and the service with every LMDB commit synced on its own (GREENLINE_LMDB_SYNC=each) and with group commit (group)
 * beside the default, lmdb-js's batched transactions (batch); durable submits/s are given as a ratio of the bare
 * route's requests/s. `--sync MODE` runs that mode alone.
 * `-- --seconds N --connections N --queues N` (defaults 60, 200, 100; the figure is 600 s).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { listening, rssMb, runBare } from './loadServers.js';
import { loadMixes, type Context } from './loadMix.js';

export { listening, runBare } from './loadServers.js';

// The built service (npm run build), as it runs in production: from the sources each upload's worker would compile
// its TypeScript again.
const BUILT = new URL('../bin/greenline.js', import.meta.url).pathname;
const SOURCE = new URL('../cli/greenline.ts', import.meta.url).pathname;

export type SyncMode = 'each' | 'group' | 'batch';

export interface EndpointFigures {
  endpoint: string;
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  serverErrors: number;
  /** Requests autocannon gave up on (no answer within its 10 s) or lost to a socket error: in no latency above. */
  timeouts: number;
}

export interface LoadFigures {
  endpoints: EndpointFigures[];
  acknowledgedSubmits: number;
  lost: number;
  duplicated: number;
  rssStartMb: number;
  rssMaxMb: number;
  rssEndMb: number;
}

/**
 * `fromSource`: run the service from its sources through tsx (the suite's short run, which cannot rely on a build).
 * `sync`: GREENLINE_LMDB_SYNC (batch, the service's default, unless given). `cpuProfileDir`: the service runs with
 * `node --cpu-prof` and writes its profile there when it exits (`-- --cpu-prof DIR`).
 */
export async function runLoad(options: {
  seconds: number;
  /**
   * Instead of `seconds`: each endpoint's connections send this many requests in all, and wait as long as their answers
   * take (the suite's short run: on a loaded machine a few seconds may see no upload answered at all).
   */
  requestsPerEndpoint?: number;
  connections: number;
  queues: number;
  fromSource?: boolean;
  sync?: SyncMode;
  cpuProfileDir?: string;
  /** One endpoint's traffic alone, on every connection (the ceiling of that endpoint in any mix: nothing else runs). */
  only?: string;
}): Promise<LoadFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-load-'));
  const token = 'load-token-0123456789abcdef';
  const profile = options.cpuProfileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`];
  const child = spawn(
    process.execPath,
    [...profile, ...(options.fromSource ? ['--import', 'tsx', SOURCE] : [BUILT]), 'serve'],
    {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        HOST: '127.0.0.1',
        PORT: '0',
        GREENLINE_DATA: dir,
        GREENLINE_PROVIDER: 'sim',
        GREENLINE_SIM_CI: 'pass=0.9,median=0.05,p90=0.1,seed=1',
        GREENLINE_API_TOKENS: `acme:${token}`,
        GREENLINE_LOG_LEVEL: 'error',
        GREENLINE_RATE_LIMIT: '10000000',
        GREENLINE_SCRAPE_RATE_LIMIT: '10000000',
        GREENLINE_LMDB_SYNC: options.sync ?? 'batch',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    const url = await listening(child);
    const headers = { 'x-api-token': token, 'content-type': 'application/json' };
    const repoOf = (q: number) => ({ host: 'github.com', owner: 'acme', name: `repo${q}` });
    for (let q = 0; q < options.queues; q++) {
      const response = await fetch(`${url}/v1/createQueue`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          repo: repoOf(q),
          targetBranch: 'main',
          concurrency: 4,
          mode: q % 2 === 0 ? 'single' : 'parallel',
        }),
      });
      if (response.status !== 200) throw new Error(`createQueue: ${response.status} ${await response.text()}`);
    }

    const all = loadMixes(options.queues, repoOf);
    const { acknowledged, body } = all;
    const mixes =
      options.only === undefined
        ? all.mixes
        : all.mixes.filter((mix) => mix.endpoint === options.only).map((mix) => ({ ...mix, share: 1 }));
    if (mixes.length === 0) throw new Error(`no endpoint ${options.only} in the mix`);

    const rssStartMb = await rssMb(child.pid!);
    let rssMaxMb = rssStartMb;
    const sampler = setInterval(() => void rssMb(child.pid!).then((mb) => (rssMaxMb = Math.max(rssMaxMb, mb))), 500);
    const runs = mixes.map((mix) => {
      const serverErrors = { count: 0 };
      return new Promise<EndpointFigures>((resolve, reject) => {
        autocannon(
          {
            url,
            connections: Math.max(1, Math.round(options.connections * mix.share)),
            ...(options.requestsPerEndpoint === undefined
              ? { duration: options.seconds }
              : { amount: options.requestsPerEndpoint, timeout: 600 }),
            headers,
            requests: [
              {
                setupRequest: ((request: never, context: Context) => mix.setup(request, context)) as never,
                onResponse: ((status: number, _body: string, context: Context) => {
                  if (status >= 500) serverErrors.count += 1;
                  mix.onResponse?.(status, context);
                }) as never,
              },
            ],
          },
          (error, result) => {
            if (error) return reject(error);
            resolve({
              endpoint: mix.endpoint,
              requests: result.requests.total,
              perSecond: result.requests.average,
              p50: result.latency.p50,
              p99: result.latency.p99,
              max: result.latency.max,
              non2xx: result.non2xx,
              serverErrors: serverErrors.count,
              timeouts: result.timeouts + result.errors,
            });
          },
        );
      });
    });
    const endpoints = await Promise.all(runs);
    clearInterval(sampler);
    const rssEndMb = await rssMb(child.pid!);

    // Every acknowledged submit is stored, once: its PR exists, and no queue lists a number twice.
    let lost = 0;
    for (const pr of acknowledged) {
      const response = await fetch(`${url}/v1/getSubmittedPullRequest`, {
        method: 'POST',
        headers,
        body: body(pr.q, { pr: { number: pr.number } }),
      });
      if (response.status !== 200) lost += 1;
    }
    let duplicated = 0;
    for (let q = 0; q < options.queues; q++) {
      const queue = (await (
        await fetch(`${url}/v1/getQueue`, { method: 'POST', headers, body: body(q, {}) })
      ).json()) as {
        enqueuedPullRequests: { prNumber: number }[];
      };
      const numbers = queue.enqueuedPullRequests.map((entry) => entry.prNumber);
      duplicated += numbers.length - new Set(numbers).size;
    }
    return { endpoints, acknowledgedSubmits: acknowledged.length, lost, duplicated, rssStartMb, rssMaxMb, rssEndMb };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await rm(dir, { recursive: true, force: true });
  }
}

export function printLoad(figures: LoadFigures): void {
  console.log(
    'endpoint                   requests    req/s   p50 ms   p99 ms   max ms   non-2xx   5xx  no answer in 10 s',
  );
  for (const e of figures.endpoints) {
    console.log(
      `${e.endpoint.padEnd(26)} ${String(e.requests).padStart(8)} ${e.perSecond.toFixed(0).padStart(8)} ${String(e.p50).padStart(8)} ${String(e.p99).padStart(8)} ${String(e.max).padStart(8)} ${String(e.non2xx).padStart(9)} ${String(e.serverErrors).padStart(5)} ${String(e.timeouts).padStart(18)}`,
    );
  }
  console.log(
    `acknowledged submits ${figures.acknowledgedSubmits}, lost ${figures.lost}, duplicated ${figures.duplicated}`,
  );
  console.log(
    `server RSS: ${figures.rssStartMb.toFixed(0)} MB at the start, at most ${figures.rssMaxMb.toFixed(0)} MB, ${figures.rssEndMb.toFixed(0)} MB at the end`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string' },
      connections: { type: 'string' },
      queues: { type: 'string' },
      'cpu-prof': { type: 'string' },
      sync: { type: 'string' },
      ceiling: { type: 'boolean' },
    },
  });
  const options = {
    seconds: Number(values.seconds ?? 60),
    connections: Number(values.connections ?? 200),
    queues: Number(values.queues ?? 100),
  };
  const bare = await runBare(options);
  console.log(`bare Fastify route, ${options.connections} connections: ${bare.toFixed(0)} requests/s\n`);
  const submitsOf = (figures: LoadFigures) =>
    figures.endpoints.find((e) => e.endpoint === 'submitPullRequest')?.perSecond ?? 0;
  const worstP99 = (figures: LoadFigures) =>
    Math.max(...figures.endpoints.filter((e) => e.endpoint !== 'flaky-tests/upload').map((e) => e.p99));
  const runs: [string, LoadFigures][] = [];
  // `--sync each|group|batch`: that mode alone; `--cpu-prof DIR`: each mode's service profile in DIR/<mode>.
  const modes = (['each', 'group', 'batch'] as const).filter(
    (mode) => values.sync === undefined || values.sync === mode,
  );
  for (const sync of modes) {
    console.log(`GREENLINE_LMDB_SYNC=${sync}:`);
    const profileDir = values['cpu-prof'] === undefined ? {} : { cpuProfileDir: join(values['cpu-prof'], sync) };
    const figures = await runLoad({ ...options, sync, ...profileDir });
    printLoad(figures);
    console.log(
      `durable submits/s ${submitsOf(figures).toFixed(0)} = ${(submitsOf(figures) / bare).toFixed(3)}× the bare route; worst non-upload P99 ${worstP99(figures)} ms\n`,
    );
    runs.push([sync, figures]);
  }
  // `--ceiling`: submits alone on every connection, in the last mode run: no mix can give submits more than this.
  if (values.ceiling === true) await printCeiling({ ...options, sync: modes.at(-1) ?? 'batch' }, bare, submitsOf);
  const each = runs.find(([mode]) => mode === 'each')?.[1];
  for (const [mode, figures] of runs) {
    if (each === undefined || mode === 'each') continue;
    console.log(
      `${mode}/each: submits/s ${(submitsOf(figures) / Math.max(1e-9, submitsOf(each))).toFixed(2)}×, worst non-upload P99 ${(worstP99(figures) / Math.max(1, worstP99(each))).toFixed(2)}×`,
    );
  }
}

/**
 * The ceiling of durable submits/s: the service taking submits alone, on all the connections. In the mix the other
 * endpoints only take the loop from them, so the mix's submits/s is at most this (and, at the mix's 30 % of
 * connections served in turn, about 0.3× the mix's total requests/s, which is at most the bare route's).
 */
async function printCeiling(
  options: { seconds: number; connections: number; queues: number; sync: SyncMode },
  bare: number,
  submitsOf: (figures: LoadFigures) => number,
): Promise<void> {
  const alone = await runLoad({ ...options, only: 'submitPullRequest' });
  printLoad(alone);
  console.log(
    `ceiling: submits alone (${options.sync}) ${submitsOf(alone).toFixed(0)}/s = ${(submitsOf(alone) / bare).toFixed(3)}× the bare route (goal for the mix ≥ 0.3×)\n`,
  );
}
