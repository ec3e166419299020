/** Retention of flaky-test results and webhook deliveries (engine/retention/results.ts): plain writes in batches. */
import { expect, test } from 'vitest';
import { acceptDelivery } from '../../engine/deliveries.js';
import { FlakyTests } from '../../engine/flaky/index.js';
import { pruneResults } from '../../engine/retention/results.js';
import { createMemoryStore } from '../../engine/store/index.js';
import { DAY, junitXml, REPO, START } from '../flaky/helpers.js';

test('results older than the window go in batches; each test record and the newer results stay', async () => {
  const store = createMemoryStore();
  let now = START;
  const flaky = new FlakyTests(store, { now: () => now });
  const upload = (sha: string, failing: boolean) =>
    flaky.upload('acme', {
      repo: REPO,
      sha,
      branch: 'main',
      variant: '',
      reports: [
        {
          file: 'junit.xml',
          xml: junitXml(
            Array.from({ length: 7 }, (_, i) => ({ name: `t${i}`, outcome: failing && i < 2 ? 'failed' : 'passed' })),
          ),
        },
      ],
    });
  upload('a'.repeat(40), true);
  upload('a'.repeat(40), false);
  now += 20 * DAY;
  upload('b'.repeat(40), true);
  acceptDelivery(store, { id: 'old', name: 'ping', body: '{}' }, START);
  acceptDelivery(store, { id: 'new', name: 'ping', body: '{}' }, now);
  const count = () =>
    store.read((tx) =>
      Object.fromEntries(
        (
          [
            'flakyUploads',
            'flakyUploadKeys',
            'flakyFailures',
            'flakyCommits',
            'flakyShas',
            'flakyTests',
            'webhookDeliveries',
            'webhookDeliveryTimes',
          ] as const
        ).map((name) => [name, tx.count(name)]),
      ),
    );
  expect(count()).toEqual({
    flakyUploads: 3,
    flakyUploadKeys: 3,
    flakyFailures: 4,
    flakyCommits: 14,
    flakyShas: 2,
    flakyTests: 7,
    webhookDeliveries: 2,
    webhookDeliveryTimes: 2,
  });
  now += 15 * DAY;
  const cut = now - 30 * DAY;
  const counts = await pruneResults(store, cut, cut, 3);
  expect(counts).toEqual({ uploads: 2, failures: 2, commits: 7, shas: 1, deliveries: 1 });
  expect(count()).toEqual({
    flakyUploads: 1,
    flakyUploadKeys: 1,
    flakyFailures: 2,
    flakyCommits: 7,
    flakyShas: 1,
    flakyTests: 7,
    webhookDeliveries: 1,
    webhookDeliveryTimes: 1,
  });
  expect(store.read((tx) => tx.get('flakyShas', [...([...tx.scan('flakyShas')][0]?.key ?? [])]))?.failing.length).toBe(
    2,
  );
  // Uploads go on as before.
  upload('c'.repeat(40), false);
  expect(count().flakyUploads).toBe(2);
  expect(await pruneResults(store, cut, cut, 3)).toEqual({
    uploads: 0,
    failures: 0,
    commits: 0,
    shas: 0,
    deliveries: 0,
  });
});

test('a sweep told to stop (the service stopping) stops between two transactions; the next sweep does the rest', async () => {
  const store = createMemoryStore();
  let now = START;
  const flaky = new FlakyTests(store, { now: () => now });
  for (let i = 0; i < 5; i++) {
    flaky.upload('acme', {
      repo: REPO,
      sha: String(i).repeat(40),
      branch: 'main',
      variant: '',
      reports: [{ file: 'junit.xml', xml: junitXml([{ name: 't' }]) }],
    });
  }
  now += 40 * DAY;
  const cut = now - 30 * DAY;
  // Told to stop once two uploads are gone.
  const stopped = await pruneResults(store, cut, undefined, 1, () => store.read((tx) => tx.count('flakyUploads')) > 3);
  expect(stopped.uploads).toBe(2);
  expect(store.read((tx) => tx.count('flakyUploads'))).toBe(3);
  const rest = await pruneResults(store, cut, undefined, 1);
  expect(rest.uploads).toBe(3);
  expect(store.read((tx) => tx.count('flakyUploads') + tx.count('flakyUploadKeys') + tx.count('flakyShas'))).toBe(0);
});

test('per-commit results are swept commit by commit: a commit uploaded only after the cutoff is not read', async () => {
  const inner = createMemoryStore();
  const read: string[] = [];
  // Every per-commit result a write transaction's scan returns, by commit.
  const store = Object.assign(Object.create(inner) as typeof inner, {
    write: <R>(fn: Parameters<typeof inner.write<R>>[0]) =>
      inner.write((tx) =>
        fn(
          Object.assign(Object.create(tx) as typeof tx, {
            scan: ((collection, options) => {
              const entries = [...tx.scan(collection, options)];
              if (collection === 'flakyCommits') for (const { key } of entries) read.push(String(key[2])[0] as string);
              return entries[Symbol.iterator]();
            }) as typeof tx.scan,
          }),
        ),
      ),
  });
  let now = START;
  const flaky = new FlakyTests(store, { now: () => now });
  const upload = (sha: string, names: string[]) =>
    flaky.upload('acme', {
      repo: REPO,
      sha: sha.repeat(40),
      branch: 'main',
      variant: '',
      reports: [{ file: 'junit.xml', xml: junitXml(names.map((name) => ({ name }))) }],
    });
  upload('a', ['t0', 't1', 't2']); // day 0, and again on day 20: spans the cutoff, read one by one
  upload('e', ['t0', 't1']); // day 0 only: goes whole
  upload('c', ['t0', 't1']); // day 0, its commit record as stored before the times were kept: read one by one
  inner.write((tx) => {
    const key = ['acme', ...[...tx.scan('flakyShas')].find(({ key }) => String(key[2]).startsWith('c'))!.key.slice(1)];
    const { firstAt: _first, lastAt: _last, ...old } = tx.get('flakyShas', key)!;
    tx.put('flakyShas', key, old);
  });
  now += 20 * DAY;
  upload('b', ['t0', 't1']); // day 20, and again on day 40: kept unread
  upload('a', ['t3']);
  upload('b', ['t2']);
  now += 5 * DAY;
  upload('d', ['t0', 't1', 't2', 't3']); // day 25: kept unread
  now += 15 * DAY;
  const cut = now - 30 * DAY; // day 10
  upload('b', ['t4']);
  const before = inner.read((tx) => [...tx.scan('flakyCommits')].map(({ key }) => `${String(key[2])[0]}:${key[3]}`));
  expect(before).toHaveLength(3 + 2 + 2 + 2 + 1 + 1 + 4 + 1);
  read.length = 0;
  const counts = await pruneResults(store, cut, undefined, 2);
  expect(counts.commits).toBe(3 + 2 + 2);
  expect(new Set(read)).toEqual(new Set(['a', 'c', 'e']));
  const left = inner.read((tx) => [...tx.scan('flakyCommits')].map(({ key }) => String(key[2])[0]));
  expect(left.sort()).toEqual(['a', 'b', 'b', 'b', 'b', 'd', 'd', 'd', 'd']);
});
