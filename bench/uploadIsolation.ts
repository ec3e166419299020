/**
 * Isolation of a large upload over HTTP (issue 30), on the real service (built, a child process, LMDB): getQueue on
 * an idle queue, with a few connections, first alone and then while another repository's 200,000-case upload is
 * parsed and stored; then the time until an upload one case over the limit is refused (400 too_many_test_cases).
 * Prints P50/P99/max of getQueue in both phases and their ratio, from the same run.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { MAX_TEST_CASES_PER_UPLOAD } from '../engine/flaky/index.js';
import { listening } from './load.js';

const BUILT = new URL('../bin/greenline.js', import.meta.url).pathname;
const TOKEN = 'isolation-token-0123456789abcdef';

interface Latency {
  requests: number;
  p50: number;
  p99: number;
  max: number;
}

const xmlOf = (cases: number) => `<testsuite name="s">${Array.from({ length: cases }, (_, i) => `<testcase classname="pkg.C${i % 500}" name="t${i}"/>`).join('')}</testsuite>`;

export async function runIsolation(options: { cases: number; seconds: number; connections: number }): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-isolation-'));
  const child = spawn(process.execPath, [BUILT, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      GREENLINE_DATA: dir,
      GREENLINE_PROVIDER: 'sim',
      GREENLINE_API_TOKENS: `acme:${TOKEN}`,
      GREENLINE_LOG_LEVEL: 'error',
      GREENLINE_RATE_LIMIT: '10000000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await listening(child);
    const headers = { 'x-api-token': TOKEN, 'content-type': 'application/json' };
    const idle = { repo: { host: 'github.com', owner: 'acme', name: 'idle' }, targetBranch: 'main' };
    const created = await fetch(`${url}/v1/createQueue`, { method: 'POST', headers, body: JSON.stringify({ ...idle, concurrency: 2 }) });
    if (created.status !== 200) throw new Error(`createQueue: ${created.status}`);
    const getQueue = (seconds: number): Promise<Latency> =>
      new Promise((resolve, reject) => {
        autocannon({ url: `${url}/v1/getQueue`, method: 'POST', headers, body: JSON.stringify(idle), connections: options.connections, duration: seconds }, (error, result) =>
          error ? reject(error) : resolve({ requests: result.requests.total, p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max }),
        );
      });
    const upload = (cases: number, job: string) =>
      fetch(`${url}/v1/flaky-tests/upload`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          repo: { host: 'github.com', owner: 'acme', name: 'big' },
          commit_sha: 'abcdef1',
          branch: 'main',
          job_url: job,
          reports: [{ file: 'r.xml', xml: xmlOf(cases) }],
        }),
      });

    const alone = await getQueue(options.seconds);
    const began = performance.now();
    const uploading = upload(options.cases, 'https://ci.example.com/big').then(async (response) => ({
      status: response.status,
      ms: performance.now() - began,
      body: await response.text(),
    }));
    const during = await getQueue(options.seconds);
    const stored = await uploading;
    const oversizeStart = performance.now();
    const oversize = await upload(MAX_TEST_CASES_PER_UPLOAD + 1, 'https://ci.example.com/oversize');
    const oversizeMs = performance.now() - oversizeStart;
    const reason = ((await oversize.json()) as { reason?: string }).reason;

    const row = (name: string, l: Latency) =>
      `${name.padEnd(34)} ${String(l.requests).padStart(7)} ${String(l.p50).padStart(7)} ${String(l.p99).padStart(7)} ${String(l.max).padStart(7)}`;
    console.log(`\ngetQueue on an idle queue over HTTP, ${options.connections} connections, ${options.seconds} s each:`);
    console.log(`${''.padEnd(34)} requests  p50 ms  p99 ms  max ms`);
    console.log(row('alone', alone));
    console.log(row(`during a ${options.cases.toLocaleString('en')}-case upload`, during));
    console.log(`ratio during/alone: p99 ${(during.p99 / Math.max(1, alone.p99)).toFixed(2)}×, max ${(during.max / Math.max(1, alone.max)).toFixed(2)}×`);
    console.log(`the upload: ${stored.status} after ${(stored.ms / 1000).toFixed(1)} s${stored.status === 200 ? '' : ` (${stored.body.slice(0, 200)})`}`);
    console.log(
      `an upload of ${(MAX_TEST_CASES_PER_UPLOAD + 1).toLocaleString('en')} cases: ${oversize.status} ${reason ?? ''} after ${oversizeMs.toFixed(0)} ms (sending its body included)`,
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await rm(dir, { recursive: true, force: true });
  }
}
