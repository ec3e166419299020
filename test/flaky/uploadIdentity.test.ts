/**
 * An upload has an identity (engine/flaky/uploadIdentity.ts): sent again, it is answered as stored or resumed where
 * it stopped, and nothing of it is counted twice; an interrupted upload keeps its stored batches for that retry.
 */
import { describe, expect, it } from 'vitest';
import { TESTS_PER_TRANSACTION, uploadInBatches, uploadNow, uploadSteps } from '../../engine/flaky/ingestBatches.js';
import { prepareUpload } from '../../engine/flaky/prepare.js';
import { prepareOffThread } from '../../engine/flaky/prepareOffThread.js';
import { uploadIdentity } from '../../engine/flaky/uploadIdentity.js';
import { EngineError } from '../../engine/model/errors.js';
import { createMemoryStore } from '../../engine/store/index.js';
import type { Store } from '../../engine/store/store.js';
import { DAY, junitXml, makeService, REPO, START } from './helpers.js';

const cases = Array.from({ length: 10 }, (_, i) => ({
  name: `t${i}`,
  outcome: i % 3 === 0 ? ('failed' as const) : ('passed' as const),
}));
const input = {
  repo: REPO,
  sha: 'a'.repeat(40),
  branch: 'main',
  variant: '',
  reports: [{ file: 'r.xml', xml: junitXml(cases) }],
};
const meta = { ...input, reports: ['r.xml'] };
const prepared = () => prepareUpload({ repo: REPO, variant: '', reports: input.reports });

/** The same upload stored without interruption, in batches of 3 tests. */
function once(): Store {
  const store = createMemoryStore();
  uploadNow(store, 'acme', meta, prepared(), () => START, { size: 3 });
  return store;
}

/** Everything an upload stores, its random id and identity aside. */
function results(store: Store) {
  return store.read((tx) => ({
    repos: [...tx.scan('flakyRepos')].map(({ value }) => ({ seq: value.seq, uploads: value.uploads })),
    commits: [...tx.scan('flakyCommits')],
    failures: [...tx.scan('flakyFailures')],
    shas: [...tx.scan('flakyShas')],
    tests: [...tx.scan('flakyTests')],
    uploads: [...tx.scan('flakyUploads')].map(({ value: { id: _id, key: _key, digest: _digest, ...value } }) => value),
  }));
}

describe('an upload sent again', () => {
  it('after being cut short between two batches stores only the batches not stored: the store holds one upload', () => {
    // A crash after two of four batches: the generator is dropped where it stands.
    const store = createMemoryStore();
    const identity = uploadIdentity(input);
    const cut = uploadSteps(store, 'acme', meta, prepared(), () => START, { identity, size: 3 });
    expect(cut.next().value).toMatchObject({ stored: 1, batches: 4 });
    expect(cut.next().value).toMatchObject({ stored: 2, batches: 4 });
    expect(store.read((tx) => [...tx.scan('flakyUploads')].map(({ value }) => value.progress))).toEqual([
      { batches: 4, size: 3, stored: 2 },
    ]);
    expect(store.read((tx) => [...tx.scan('flakyShas')][0]?.value.storing)).toBe(1);

    const again = uploadNow(store, 'acme', meta, prepared(), () => START, { identity, size: 3 });
    expect(again).toMatchObject({ tests: 10, failed: 4, alreadyStored: false });
    expect(results(store)).toEqual(results(once()));
  });

  it('once stored in full, is answered as stored, and counts nothing again', () => {
    const { service, store } = makeService();
    const first = service.upload('acme', input);
    const before = results(store);
    const second = service.upload('acme', input);
    expect(second).toEqual({ ...first, alreadyStored: true });
    expect(results(store)).toEqual(before);
    expect(store.read((tx) => [...tx.scan('flakyTests')].map(({ value }) => value.totals.runs))).toEqual(
      Array(10).fill(1),
    );
  });

  it('without an upload_key, a day later, is a run of its own', () => {
    const { service, store, clock } = makeService();
    const first = service.upload('acme', input);
    clock.advance(DAY);
    const second = service.upload('acme', input);
    expect(second.uploadId).not.toBe(first.uploadId);
    expect(store.read((tx) => [...tx.scan('flakyTests')].map(({ value }) => value.totals.runs))).toEqual(
      Array(10).fill(2),
    );
  });

  it('under its upload_key is the same upload for good; other content under that key is a conflict; another key is another upload', () => {
    const { service, store, clock } = makeService();
    const first = service.upload('acme', { ...input, uploadKey: 'job-42-attempt-1' });
    clock.advance(10 * DAY);
    expect(service.upload('acme', { ...input, uploadKey: 'job-42-attempt-1' })).toEqual({
      ...first,
      alreadyStored: true,
    });
    const other = {
      ...input,
      reports: [{ file: 'r.xml', xml: junitXml([{ name: 'other' }]) }],
      uploadKey: 'job-42-attempt-1',
    };
    expect(() => service.upload('acme', other)).toThrowError(expect.objectContaining({ code: 'upload_key_conflict' }));
    expect(service.upload('acme', { ...input, uploadKey: 'job-42-attempt-2' }).alreadyStored).toBe(false);
    expect(store.read((tx) => tx.get('flakyRepos', [...([...tx.scan('flakyRepos')][0]?.key ?? [])])?.uploads)).toBe(2);
  });
});

describe('two sends of one upload at once', () => {
  it('each store the batches the other has not: both are answered, and every test counts one run', async () => {
    const { service, store } = makeService();
    const many = {
      ...input,
      reports: [
        {
          file: 'r.xml',
          xml: junitXml(Array.from({ length: 2 * TESTS_PER_TRANSACTION + 1 }, (_, i) => ({ name: `t${i}` }))),
        },
      ],
    };
    const [one, two] = await Promise.all([
      service.uploadOffThread('acme', many),
      service.uploadOffThread('acme', many),
    ]);
    expect(two.uploadId).toBe(one.uploadId);
    expect(
      store.read((tx) => ({
        uploads: tx.count('flakyUploads'),
        runs: new Set([...tx.scan('flakyTests')].map(({ value }) => value.totals.runs)),
      })),
    ).toEqual({
      uploads: 1,
      runs: new Set([1]),
    });
    expect(store.read((tx) => [...tx.scan('flakyShas')].map(({ value }) => value.storing))).toEqual([undefined]);
  });
});

describe('an upload interrupted', () => {
  it('between two batches answers upload_interrupted, keeps what it stored, and the same upload completes it', async () => {
    const store = createMemoryStore();
    const identity = uploadIdentity(input);
    const stop = new AbortController();
    // The first transaction runs at once; the signal is seen before the second.
    const storing = uploadInBatches(store, 'acme', meta, prepared(), () => START, {
      identity,
      size: 3,
      signal: stop.signal,
    });
    stop.abort();
    const error = await storing.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({ code: 'upload_interrupted', message: expect.stringContaining('1 of its 4 batches') });
    expect(store.read((tx) => [...tx.scan('flakyUploads')].map(({ value }) => value.progress))).toEqual([
      { batches: 4, size: 3, stored: 1 },
    ]);

    await uploadInBatches(store, 'acme', meta, prepared(), () => START, { identity, size: 3 });
    expect(results(store)).toEqual(results(once()));
  });

  it('while being parsed ends its worker and rejects with the abort reason, storing nothing', async () => {
    const big = junitXml(Array.from({ length: 50_000 }, (_, i) => ({ name: `t${i}` })));
    const stop = new AbortController();
    const parsing = prepareOffThread(
      { repo: REPO, variant: '', reports: [{ file: 'big.xml', xml: big }] },
      stop.signal,
      () => new Error('stopped'),
    );
    // Another upload, parsing or waiting for its turn (one parse per spare core), stops as well.
    const other = new AbortController();
    const waiting = prepareOffThread(
      { repo: REPO, variant: '', reports: [{ file: 'big.xml', xml: big }] },
      other.signal,
      () => new Error('stopped too'),
    );
    other.abort();
    await expect(waiting).rejects.toThrow('stopped too');
    stop.abort();
    await expect(parsing).rejects.toThrow('stopped');
    // Its slot is free again: the next parse runs.
    await expect(prepareOffThread({ repo: REPO, variant: '', reports: input.reports })).resolves.toMatchObject({
      counts: { tests: 10 },
    });
  });
});
