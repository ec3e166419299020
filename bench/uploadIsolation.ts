/**
 * Isolation of a large upload over HTTP (issue 30), on the real service (built, a child process, LMDB): getQueue on
 * an idle queue, with a few connections, first alone and then while another repository's 200,000-case upload is
 * parsed and stored; then the time until an upload one case over the limit is refused (400 too_many_test_cases).
 * Prints P50/P99/max of getQueue in both phases and their ratio, from the same run.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
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

const xmlOf = (cases: number) =>
  `<testsuite name="s">${Array.from({ length: cases }, (_, i) => `<testcase classname="pkg.C${i % 500}" name="t${i}"/>`).join('')}</testsuite>`;

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
    const created = await fetch(`${url}/v1/createQueue`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ ...idle, concurrency: 2 }),
    });
    if (created.status !== 200) throw new Error(`createQueue: ${created.status}`);
    const getQueue = (seconds: number): Promise<Latency> =>
      new Promise((resolve, reject) => {
        autocannon(
          {
            url: `${url}/v1/getQueue`,
            method: 'POST',
            headers,
            body: JSON.stringify(idle),
            connections: options.connections,
            duration: seconds,
          },
          (error, result) =>
            error
              ? reject(error)
              : resolve({
                  requests: result.requests.total,
                  p50: result.latency.p50,
                  p99: result.latency.p99,
                  max: result.latency.max,
                }),
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

    const row = (name: string, l: Latency) =>
      `${name.padEnd(34)} ${String(l.requests).padStart(7)} ${String(l.p50).padStart(7)} ${String(l.p99).padStart(7)} ${String(l.max).padStart(7)}`;
    console.log(
      `\ngetQueue on an idle queue over HTTP, ${options.connections} connections, ${options.seconds} s each:`,
    );
    console.log(`${''.padEnd(34)} requests  p50 ms  p99 ms  max ms`);
    const alone = await getQueue(options.seconds);
    console.log(row('alone', alone));
    const began = performance.now();
    const uploading = upload(options.cases, 'https://ci.example.com/big').then(
      async (response) => ({ status: response.status, ms: performance.now() - began, body: await response.text() }),
      (error: unknown) => ({
        status: 0,
        ms: performance.now() - began,
        body: `no answer: ${error instanceof Error ? String(error.cause ?? error.message) : String(error)}`,
      }),
    );
    const during = await getQueue(options.seconds);
    console.log(row(`during a ${options.cases.toLocaleString('en')}-case upload`, during));
    console.log(
      `ratio during/alone: p99 ${(during.p99 / Math.max(1, alone.p99)).toFixed(2)}×, max ${(during.max / Math.max(1, alone.max)).toFixed(2)}×`,
    );
    const stored = await uploading;
    console.log(
      `the upload: ${stored.status} after ${(stored.ms / 1000).toFixed(1)} s${stored.status === 200 ? '' : ` (${stored.body.slice(0, 200)})`}`,
    );
    const oversize = await oversizeUpload(url);
    console.log(
      `an upload of ${(MAX_TEST_CASES_PER_UPLOAD + 1).toLocaleString('en')} cases, sent in 64 KiB pieces: ${oversize.status} ${oversize.reason} ` +
        `${oversize.beforeEnd ? 'before' : 'after'} its body ended, ${oversize.sinceCrossingMs.toFixed(0)} ms after the piece that crossed the limit was sent ` +
        `(${(oversize.sentBytes / 2 ** 20).toFixed(1)} of ${(oversize.totalBytes / 2 ** 20).toFixed(1)} MiB sent)`,
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * An upload one case over the limit, its body sent in 64 KiB pieces as the socket takes them: when the answer came,
 * counted from the piece that held the case crossing the limit, and whether the body had been sent whole by then.
 */
async function oversizeUpload(url: string): Promise<{
  status: number;
  reason: string;
  beforeEnd: boolean;
  sinceCrossingMs: number;
  sentBytes: number;
  totalBytes: number;
}> {
  const head = JSON.stringify({
    repo: { host: 'github.com', owner: 'acme', name: 'big' },
    commit_sha: 'abcdef1',
    branch: 'main',
    job_url: 'https://ci.example.com/oversize',
    reports: [{ file: 'r.xml', xml: '' }],
  });
  const open = head.slice(0, head.lastIndexOf('"'));
  const caseText = '<testcase classname=\\"pkg.C\\" name=\\"t\\"/>';
  const crossingAt = Buffer.byteLength(open) + Buffer.byteLength(caseText) * (MAX_TEST_CASES_PER_UPLOAD + 1);
  // After the crossing, more cases up to 19 MiB (under the 20 MiB body limit): what a server reading it all would wait for.
  const tail = Math.floor((19 * 2 ** 20 - crossingAt) / Buffer.byteLength(caseText));
  const body = Buffer.from(`${open}${caseText.repeat(MAX_TEST_CASES_PER_UPLOAD + 1 + tail)}"}]}`);
  const { hostname, port } = new URL(url);
  const request = http.request({
    host: hostname,
    port,
    method: 'POST',
    path: '/v1/flaky-tests/upload',
    headers: { 'x-api-token': TOKEN, 'content-type': 'application/json', 'content-length': body.length },
  });
  request.on('error', () => undefined);
  let crossedAt: number | undefined;
  let sent = 0;
  let answeredAt: number | undefined;
  const answer = new Promise<{ status: number; text: string }>((resolve) =>
    request.on('response', (response) => {
      answeredAt = performance.now();
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      response.on('error', () => resolve({ status: response.statusCode ?? 0, text }));
    }),
  );
  const piece = 64 * 1024;
  for (; sent < body.length && answeredAt === undefined; ) {
    const next = Math.min(body.length, sent + piece);
    const ok = request.write(body.subarray(sent, next));
    if (crossedAt === undefined && next >= crossingAt) crossedAt = performance.now();
    sent = next;
    if (!ok) {
      await new Promise<void>((resolve) => {
        const done = () => {
          request.off('drain', done).off('close', done);
          resolve();
        };
        request.on('drain', done).on('close', done);
      });
    }
  }
  const beforeEnd = sent < body.length;
  if (!beforeEnd) request.end();
  const { status, text } = await answer;
  request.destroy();
  let reason = '';
  try {
    reason = (JSON.parse(text) as { reason?: string }).reason ?? '';
  } catch {}
  return {
    status,
    reason,
    beforeEnd,
    sinceCrossingMs: (answeredAt ?? performance.now()) - (crossedAt ?? performance.now()),
    sentBytes: sent,
    totalBytes: body.length,
  };
}
