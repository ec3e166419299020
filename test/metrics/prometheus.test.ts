/**
 * A real Prometheus scrapes the metrics with the token as a bearer token, as every Prometheus can (Debian's 2.42 has
 * no http_headers). Skipped, and says so, when no `prometheus` binary is installed (apt-get install prometheus).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { makeApi, queueBody, TOKENS, type Api } from '../api/harness.js';

const installed = spawnSync('prometheus', ['--version'], { encoding: 'utf8' }).status === 0;
if (!installed) console.warn('SKIPPED: no prometheus binary, so no real scrape was tried (apt-get install prometheus)');

let api: Api | undefined;
let prometheus: ChildProcess | undefined;
let dir: string | undefined;
afterEach(async () => {
  if (prometheus !== undefined && prometheus.exitCode === null) {
    const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
    prometheus.kill('SIGTERM');
    await exited;
  }
  await api?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!installed)('Prometheus (skipped when it is not installed)', () => {
  test('scrapes getMergeQueueMetrics with Authorization: Bearer and gets the metrics', async () => {
    api = await makeApi();
    const scrapes: { status: number; authorization: string; agent: string }[] = [];
    api.app.addHook('onResponse', async (request, reply) => {
      if (request.url.startsWith('/v1/getMergeQueueMetrics')) {
        scrapes.push({
          status: reply.statusCode,
          authorization: String(request.headers.authorization ?? ''),
          agent: String(request.headers['user-agent'] ?? ''),
        });
      }
    });
    expect((await api.post('createQueue', queueBody())).statusCode).toBe(200);
    await api.app.listen({ host: '127.0.0.1', port: 0 });
    const address = api.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');

    dir = await mkdtemp(join(tmpdir(), 'greenline-prometheus-'));
    await writeFile(join(dir, 'token'), TOKENS.acme);
    await writeFile(
      join(dir, 'prometheus.yml'),
      [
        'global: { scrape_interval: 1s, scrape_timeout: 1s }',
        'scrape_configs:',
        '  - job_name: greenline',
        '    metrics_path: /v1/getMergeQueueMetrics',
        `    authorization: { credentials_file: ${join(dir, 'token')} }`,
        `    static_configs: [{ targets: ["127.0.0.1:${address.port}"] }]`,
        '',
      ].join('\n'),
    );
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        '--web.listen-address=127.0.0.1:0',
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let log = '';
    prometheus.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    // Wait for the first scrape (the test's timeout bounds the wait).
    while (scrapes.length === 0) {
      if (prometheus.exitCode !== null) throw new Error(`prometheus exited:\n${log}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(scrapes[0]).toEqual({
      status: 200,
      authorization: `Bearer ${TOKENS.acme}`,
      agent: expect.stringMatching(/^Prometheus\//),
    });
  });
});
