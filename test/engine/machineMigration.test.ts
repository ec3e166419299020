/**
 * pullRequest snapshots of machine version 1 (before the merge under way was the machine's) still load: a data folder
 * written then, holding a PR whose merge was asked of the git host, restores it as being merged (it cannot be
 * cancelled or restarted, and the host's answer completes it), and event-log digests are taken of the version-1
 * form, so the digests of logs recorded before stay the same.
 */
import { describe, expect, test } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { EngineError } from '../../engine/model/errors.js';
import {
  fromStored,
  migrateStored,
  storedForDigest,
  type StoredSnapshot,
} from '../../engine/model/machineSnapshots.js';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';
import { createMemoryStore } from '../../engine/store/index.js';
import type { Store } from '../../engine/store/store.js';
import { KEY } from './queueHarness.js';
import { MACHINE_VERSION } from '../../machines/index.js';

const V1_MERGING: StoredSnapshot = {
  machine: 'pullRequest',
  version: 1,
  value: 'TESTS_PASSED',
  context: { number: 1, runId: 'tr_1', reason: null },
};

describe('migrateStored', () => {
  test('a version-1 PR snapshot takes its merge under way from the record beside it', () => {
    expect(migrateStored(V1_MERGING, { mergeRequested: true, mergedBy: 'tr_2' })).toEqual({
      ...V1_MERGING,
      version: 2,
      context: { number: 1, runId: 'tr_1', reason: null, merge: { by: 'tr_2' } },
    });
    expect(migrateStored(V1_MERGING, { mergeRequested: false, mergedBy: null })).toEqual({ ...V1_MERGING, version: 2 });
    expect(
      migrateStored({ ...V1_MERGING, value: 'MERGED' }, { mergeRequested: false, mergedBy: 'direct' }).context,
    ).toMatchObject({ merge: { by: 'direct' } });
    expect(migrateStored(V1_MERGING)).toEqual({ ...V1_MERGING, version: 2 });
  });

  test('and its bisection group from the record too', () => {
    const pending: StoredSnapshot = { ...V1_MERGING, value: 'PENDING' };
    expect(migrateStored(pending, { mergeRequested: false, bisectionId: 'b3', group: 'g7' }).context).toEqual({
      number: 1,
      runId: 'tr_1',
      reason: null,
      bisection: { id: 'b3', group: 'g7' },
    });
    expect(migrateStored(pending, { mergeRequested: false, bisectionId: null, group: null }).context).toEqual(
      V1_MERGING.context,
    );
  });

  test('a version-2 PR snapshot takes the base it was tested on and its runs behind from the record', () => {
    const v2: StoredSnapshot = {
      machine: 'pullRequest',
      version: 2,
      value: 'PENDING_FAILURE',
      context: { number: 1, runId: 'tr_1', reason: 'ci', merge: { by: 'tr_4' } },
    };
    expect(migrateStored(v2, { testedBase: [3, 5], runsBehindEnded: 2, runsBehindFailed: 1 })).toEqual({
      ...v2,
      version: 3,
      context: {
        number: 1,
        runId: 'tr_1',
        reason: 'ci',
        merge: { by: 'tr_4' },
        testedBase: [3, 5],
        runsBehindEnded: 2,
        runsBehindFailed: 1,
      },
    });
    // A record as a new entry has it (nothing tested, nothing counted), or none: the context a new entry has.
    expect(migrateStored(v2, { testedBase: null, runsBehindEnded: 0 })).toEqual({ ...v2, version: 3 });
    expect(migrateStored(v2)).toEqual({ ...v2, version: 3 });
    const current = { ...v2, version: MACHINE_VERSION.pullRequest };
    expect(migrateStored(current, { testedBase: [9] })).toEqual(current);
  });

  test('a version-3 PR snapshot takes the failure facts the record counted (retests, refusals, attempts, speculated)', () => {
    const v3: StoredSnapshot = {
      machine: 'pullRequest',
      version: 3,
      value: 'PENDING',
      context: { number: 1, runId: 'tr_1', reason: null },
    };
    expect(migrateStored(v3, { failureRetests: 1, mergeRefusals: 2, failedAttempts: 3, speculated: true })).toEqual({
      ...v3,
      version: 4,
      context: {
        number: 1,
        runId: 'tr_1',
        reason: null,
        failureRetests: 1,
        mergeRefusals: 2,
        failedAttempts: 3,
        speculated: true,
      },
    });
    expect(migrateStored(v3)).toEqual({ ...v3, version: 4 });
    expect(fromStored('pullRequest', v3, { speculated: true }).can({ type: 'ISOLATE' })).toBe(false);
  });

  test('a version-1 PR snapshot loads through both migrations', () => {
    const facts = { mergeRequested: true, mergedBy: 'tr_2', testedBase: [4], runsBehindEnded: 1 };
    const snapshot = fromStored('pullRequest', V1_MERGING, facts);
    expect(snapshot.value).toBe('TESTS_PASSED');
    expect(snapshot.context).toEqual({
      number: 1,
      runId: 'tr_1',
      reason: null,
      merge: { by: 'tr_2' },
      testedBase: [4],
      runsBehindEnded: 1,
    });
    expect(snapshot.can({ type: 'BASE_CHANGED', number: 4, reason: 'pushed' })).toBe(false);
  });

  test('digests see a version-3 snapshot as version 1 stored it', () => {
    const v3 = migrateStored(
      migrateStored(V1_MERGING, { mergeRequested: true, mergedBy: null, bisectionId: 'b1', group: 'g2' }),
      {
        testedBase: [2],
        runsBehindEnded: 3,
        runsBehindFailed: 0,
      },
    );
    expect(v3.version).toBe(3);
    expect(JSON.stringify(storedForDigest(v3))).toBe(JSON.stringify(V1_MERGING));
  });

  test('digests see a version-2 snapshot as version 1 stored it', () => {
    const migrated = migrateStored(V1_MERGING, {
      mergeRequested: true,
      mergedBy: null,
      bisectionId: 'b1',
      group: 'g2',
    });
    expect(JSON.stringify(storedForDigest(migrated))).toBe(JSON.stringify(V1_MERGING));
    const run: StoredSnapshot = { machine: 'testRun', version: 1, value: 'in_progress', context: {} };
    expect(storedForDigest(run)).toBe(run);
  });
});

/** A queue whose PR 1 passed and whose merge is asked of the host (effects held: the host never answers). */
function mergingQueue(store: Store, scheduler: VirtualScheduler): { engine: Engine; queueId: string; entryId: string } {
  const engine = new Engine(store, {
    scheduler,
    holdEffects: true,
    onError: (message, error) => {
      throw new Error(`${message}: ${String(error)}`);
    },
  });
  engine.start();
  const queueId = engine.createQueue(KEY, { requiredStatuses: ['ci'] }).id;
  engine.replayInput(queueId, { type: 'targetHead', sha: 'a'.repeat(40) });
  engine.submitPullRequest(KEY, 1);
  const entryId = engine.getSubmittedPullRequest(KEY, 1).pr.id;
  engine.replayInput(queueId, {
    type: 'prChecked',
    number: 1,
    entryId,
    facts: { title: 'one', author: 'ann', sha: 'b'.repeat(40), baseBranch: 'main', mergeable: true, upToDate: false },
  });
  const runId = engine.getSubmittedPullRequest(KEY, 1).pr.runId as string;
  engine.replayInput(queueId, {
    type: 'branchBuilt',
    runId,
    result: { ok: true, branch: `greenline/main/${runId}`, sha: 'c'.repeat(40) },
  });
  engine.replayInput(queueId, { type: 'status', runId, context: 'ci', state: 'success', url: '', description: '' });
  return { engine, queueId, entryId };
}

test('a data folder written with pullRequest version 1 restores a merge under way', () => {
  const store = createMemoryStore();
  const scheduler = new VirtualScheduler(Date.parse('2026-11-22T00:00:00.000Z'));
  const before = mergingQueue(store, scheduler);
  expect(before.engine.getSubmittedPullRequest(KEY, 1).pr).toMatchObject({
    state: 'TESTS_PASSED',
    mergeRequested: true,
  });
  before.engine.stop();
  // As the previous build stored it: version 1, no merge in the machine (only the record says it).
  store.write((tx) => {
    const stored = tx.get('actors', [before.queueId, 'pr', 1]) as StoredSnapshot;
    expect(stored).toMatchObject({ version: MACHINE_VERSION.pullRequest, context: { merge: { by: null } } });
    tx.put('actors', [before.queueId, 'pr', 1], storedForDigest(stored));
  });

  const engine = new Engine(store, {
    scheduler,
    holdEffects: true,
    onError: (message, error) => {
      throw new Error(`${message}: ${String(error)}`);
    },
  });
  engine.start();
  expect(() => engine.cancelPullRequest(KEY, 1)).toThrow(EngineError);
  expect(() => engine.restartTestsOnPullRequest(KEY, 1)).toThrow(/being merged/);
  engine.replayInput(before.queueId, {
    type: 'merged',
    number: 1,
    entryId: before.entryId,
    result: { ok: true, head: 'c'.repeat(40) },
  });
  expect(engine.getSubmittedPullRequest(KEY, 1).pr).toMatchObject({
    state: 'MERGED',
    mergeRequested: false,
    mergedBy: null,
    mergedSha: 'c'.repeat(40),
  });
  expect(store.read((tx) => tx.get('actors', [before.queueId, 'pr', 1]))).toMatchObject({
    version: MACHINE_VERSION.pullRequest,
    value: 'MERGED',
    context: { merge: { by: null } },
  });
  engine.stop();
});
