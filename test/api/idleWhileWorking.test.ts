/**
 * The idle timeout is the client's, not the server's (api/connections.ts noIdleTimeoutWhileWorking): a request read
 * whole whose answer takes longer than the idle timeout (here: the group sync its upload's write waits for is held)
 * is still answered. Before, Node destroyed the socket at the idle timeout and the client got no answer, though the
 * upload was stored. No clock: a second, silent connection opened after the request was read is the witness that
 * the idle timeout has passed (the server closes it then).
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { buildServer } from '../../api/server.js';
import { Engine } from '../../engine/engine.js';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';
import { openLmdbStore } from '../../engine/store/index.js';
import { syncConfiguredTokens } from '../../engine/tokens.js';

const TOKEN = 'idle-token-0123456789abcdef';

test('an answer that waits longer than the idle timeout still reaches the client', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-idle-'));
  let hold: { promise: Promise<void>; release: () => void; reached: () => void } | undefined;
  let reached: Promise<void> | undefined;
  const store = openLmdbStore({
    dir,
    beforeSync: () => (hold === undefined ? Promise.resolve() : (hold.reached(), hold.promise)),
  });
  syncConfiguredTokens(store, [{ org: 'acme', token: TOKEN }], new Date().toISOString());
  await store.durable?.();
  const engine = new Engine(store, { scheduler: new VirtualScheduler(Date.now()) });
  engine.start();
  const app = await buildServer({ engine, timeouts: { idleMs: 300 } });
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    let release: () => void = () => undefined;
    let onReached: () => void = () => undefined;
    reached = new Promise<void>((resolve) => (onReached = resolve));
    hold = {
      promise: new Promise<void>((resolve) => (release = resolve)),
      release: () => release(),
      reached: () => onReached(),
    };

    const body = JSON.stringify({
      repo: { host: 'github.com', owner: 'acme', name: 'widgets' },
      commit_sha: 'abcdef1',
      branch: 'main',
      reports: [{ file: 'r.xml', xml: '<testsuite name="s"><testcase classname="c" name="t"/></testsuite>' }],
    });
    const answer = new Promise<{ status: number } | { error: string }>((resolve) => {
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/flaky-tests/upload',
          headers: { 'x-api-token': TOKEN, 'content-type': 'application/json' },
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
        },
      );
      request.on('error', (error) => resolve({ error: error.message }));
      request.end(body);
    });
    // The upload is stored and its answer waits for the sync: the request was read whole before this point.
    await reached;
    // A silent connection opened now is closed by the server once the idle timeout passes for it, and so after it
    // passed for the upload's connection, silent since before.
    const witness = net.connect(port, '127.0.0.1');
    witness.on('error', () => undefined);
    await new Promise((resolve) => witness.once('close', resolve));
    hold.release();
    expect(await answer).toEqual({ status: 200 });
    expect(store.read((tx) => tx.count('flakyUploads'))).toBe(1);
  } finally {
    hold?.release();
    hold = undefined;
    engine.stop();
    await app.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
