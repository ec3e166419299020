/** Retention of flaky-test results and webhook deliveries (engine/retention/results.ts): plain writes in batches. */
import { expect, test } from 'vitest';
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
  store.write((tx) => {
    tx.put('webhookDeliveries', ['old'], new Date(START).toISOString());
    tx.put('webhookDeliveries', ['new'], new Date(now).toISOString());
  });
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
