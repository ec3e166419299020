/**
 * A large upload is stored in batches (engine/flaky/ingestBatches.ts): a health check sent while it is being stored
 * is answered before the upload; stored in batches, an upload leaves the same results as in one transaction; and the
 * merge queue's verdict vouches for nothing while an upload of that commit is only partly stored.
 */
import { describe, expect, it } from 'vitest';
import { quarantineVerdict } from '../../engine/flaky/index.js';
import { writeUpload } from '../../engine/flaky/ingest.js';
import { TESTS_PER_TRANSACTION, uploadSteps } from '../../engine/flaky/ingestBatches.js';
import { prepareUpload } from '../../engine/flaky/prepare.js';
import { createMemoryStore } from '../../engine/store/index.js';
import type { Store } from '../../engine/store/store.js';
import { makeApi, REPO } from '../api/harness.js';
import { junitXml } from '../flaky/helpers.js';

const suite = (cases: number) =>
  `<testsuite name="s">${Array.from({ length: cases }, (_, i) => `<testcase classname="pkg.C${i % 50}" name="t${i}"/>`).join('')}</testsuite>`;

describe('a large upload being stored', () => {
  it('does not hold up a health check sent once its first batch is stored', async () => {
    const api = await makeApi();
    const cases = 12 * TESTS_PER_TRANSACTION;
    const finished: string[] = [];
    let partial: number | undefined;
    const uploaded = api
      .post('flaky-tests/upload', {
        repo: REPO,
        commit_sha: 'abcdef1',
        branch: 'main',
        reports: [{ file: 'r.xml', xml: suite(cases) }],
      })
      .then((response) => {
        finished.push(`upload ${response.statusCode}`);
        return response;
      });
    // Once the first batch is stored (the upload record is there), a health check is sent.
    const health = (async () => {
      while (api.store.read((tx) => tx.count('flakyUploads')) === 0)
        await new Promise((resolve) => setImmediate(resolve));
      partial = api.store.read((tx) => tx.count('flakyTests'));
      const response = await api.app.inject({ method: 'GET', url: '/healthz' });
      finished.push(`healthz ${response.statusCode}`);
    })();
    const response = await uploaded;
    await health;
    expect(response.json()).toMatchObject({ tests: cases, passed: cases });
    expect(partial).toBeLessThan(cases);
    expect(finished).toEqual(['healthz 200', 'upload 200']);
    expect(api.store.read((tx) => tx.count('flakyTests'))).toBe(cases);
    expect(api.store.read((tx) => [...tx.scan('flakyShas')].map(({ value }) => value.storing))).toEqual([undefined]);
    await api.close();
  });
});

function results(store: Store) {
  return store.read((tx) => ({
    commits: [...tx.scan('flakyCommits')],
    failures: [...tx.scan('flakyFailures')],
    shas: [...tx.scan('flakyShas')],
    tests: [...tx.scan('flakyTests')].map(({ key, value }) => ({
      key,
      status: value.status.value,
      totals: value.totals,
      hours: value.hours,
      days: value.days,
    })),
    uploads: [...tx.scan('flakyUploads')].map(({ value }) => ({ ...value, id: '' })),
  }));
}

describe('batches', () => {
  const meta = { repo: REPO, sha: 'a'.repeat(40), branch: 'main', variant: '', reports: ['r.xml'] };
  const cases = Array.from({ length: 10 }, (_, i) => ({
    name: `t${i}`,
    outcome: i % 3 === 0 ? ('failed' as const) : ('passed' as const),
  }));
  const prepared = () => prepareUpload({ repo: REPO, variant: '', reports: [{ file: 'r.xml', xml: junitXml(cases) }] });
  const NOW = Date.parse('2026-11-22T12:00:00.000Z');

  it('store the same results as one transaction', () => {
    const one = createMemoryStore();
    one.write((tx) => writeUpload(tx, 'acme', meta, prepared(), NOW));
    const batched = createMemoryStore();
    const steps = uploadSteps(batched, 'acme', meta, prepared(), () => NOW, { size: 3 });
    let transactions = 1;
    while (steps.next().done !== true) transactions++;
    expect(transactions).toBe(4);
    expect(results(batched)).toEqual(results(one));
  });

  it('while an upload is partly stored, the verdict on its commit vouches for nothing', () => {
    const store = createMemoryStore();
    const steps = uploadSteps(store, 'acme', meta, prepared(), () => NOW, { size: 3 });
    steps.next();
    const during = store.read((tx) => ({
      record: tx.get('flakyShas', [...([...tx.scan('flakyShas')][0]?.key ?? [])]),
      verdict: quarantineVerdict(tx, 'acme', REPO, meta.sha),
    }));
    expect(during.record?.storing).toBe(1);
    expect(during.verdict?.allFailuresQuarantined).toBe(false);
    while (steps.next().done !== true);
    expect(store.read((tx) => [...tx.scan('flakyShas')][0]?.value.storing)).toBeUndefined();
  });
});
