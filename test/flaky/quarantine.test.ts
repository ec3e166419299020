/**
 * The link between the two halves of the product: the merge queue asks, inside its own transaction, whether a
 * failed test run's failures (as uploaded for the run's SHA) are all quarantined; if so the run counts as passed.
 */
import { describe, expect, test } from 'vitest';
import { describeVerdict, quarantineVerdict, testId, type FlakyTests } from '../../engine/flaky/index.js';
import type { Store } from '../../engine/store/store.js';
import { DAY, makeService, REPO, upload } from './helpers.js';

const RUN_SHA = 'c0ffee'.padEnd(40, '0');
const ID = (name: string) => testId(REPO, { file: '', classname: 'Suite', parent: 'suite', name, variant: '' });

/** What the merge queue does when a run fails: read the verdict in a transaction, pass the run if it says so. */
function mergeQueueRunOutcome(
  store: Store,
  sha: string,
  now?: number,
): { status: 'succeeded' | 'failed'; note: string } {
  return store.read((tx) => {
    const verdict = quarantineVerdict(tx, 'acme', REPO, sha, now);
    if (verdict === undefined) return { status: 'failed', note: 'no test results uploaded for this SHA' };
    return { status: verdict.allFailuresQuarantined ? 'succeeded' : 'failed', note: describeVerdict(verdict) };
  });
}

const quarantine = (service: FlakyTests, name: string) =>
  service.setQuarantine('acme', 'acme', REPO, ID(name), 'ALWAYS_QUARANTINE');

describe('quarantineVerdict', () => {
  test('undefined when nothing was uploaded for the SHA', () => {
    const { store } = makeService();
    expect(store.read((tx) => quarantineVerdict(tx, 'acme', REPO, RUN_SHA))).toBeUndefined();
  });

  test('the merge queue passes a run whose only failures are quarantined', () => {
    const { service, store } = makeService();
    upload(service, [{ name: 'ok' }], { sha: 'b'.repeat(40) });
    upload(service, [{ name: 'flaky-one' }, { name: 'ok' }], { sha: 'b'.repeat(40) });
    quarantine(service, 'flaky-one');
    upload(service, [{ name: 'flaky-one', outcome: 'failed' }, { name: 'ok' }], {
      sha: RUN_SHA,
      branch: 'gl/test/run-1',
    });

    const verdict = store.read((tx) => quarantineVerdict(tx, 'acme', REPO, RUN_SHA.toUpperCase()));
    expect(verdict).toEqual({
      uploads: 1,
      failedTests: [{ id: ID('flaky-one'), name: 'flaky-one' }],
      allFailuresQuarantined: true,
    });
    expect(mergeQueueRunOutcome(store, RUN_SHA)).toEqual({
      status: 'succeeded',
      note: 'passed: every failed test is quarantined (flaky-one)',
    });
  });

  test('a run with one failure that is not quarantined still fails', () => {
    const { service, store } = makeService();
    upload(service, [{ name: 'flaky-one' }, { name: 'real' }]);
    quarantine(service, 'flaky-one');
    upload(
      service,
      [
        { name: 'flaky-one', outcome: 'failed' },
        { name: 'real', outcome: 'error' },
      ],
      { sha: RUN_SHA },
    );
    const verdict = store.read((tx) => quarantineVerdict(tx, 'acme', REPO, RUN_SHA));
    expect(verdict?.allFailuresQuarantined).toBe(false);
    expect(verdict?.failedTests.map((test) => test.name).sort()).toEqual(['flaky-one', 'real']);
    expect(mergeQueueRunOutcome(store, RUN_SHA).status).toBe('failed');
  });

  test('every upload for the SHA counts; a test that passed on a retry is not a failure of the run', () => {
    const { service, store } = makeService();
    upload(service, [{ name: 'q' }, { name: 'retried' }]);
    quarantine(service, 'q');
    upload(
      service,
      [
        { name: 'q', outcome: 'failed' },
        { name: 'retried', outcome: 'failed' },
      ],
      { sha: RUN_SHA },
    );
    upload(service, [{ name: 'retried' }], { sha: RUN_SHA });
    expect(store.read((tx) => quarantineVerdict(tx, 'acme', REPO, RUN_SHA))).toMatchObject({
      uploads: 2,
      failedTests: [{ name: 'q' }],
      allFailuresQuarantined: true,
    });
  });

  test('failures without an identity, or no failures at all, never pass a failed run', () => {
    const { service, store } = makeService();
    upload(service, [{ name: 'fine' }], { sha: RUN_SHA });
    expect(store.read((tx) => quarantineVerdict(tx, 'acme', REPO, RUN_SHA))?.allFailuresQuarantined).toBe(false);
    const other = 'd'.repeat(40);
    service.upload('acme', {
      repo: REPO,
      sha: other,
      branch: 'main',
      variant: '',
      reports: [{ file: 'anon.xml', xml: '<testsuite><testcase><failure/></testcase></testsuite>' }],
    });
    expect(store.read((tx) => quarantineVerdict(tx, 'acme', REPO, other))).toMatchObject({
      failedTests: [],
      allFailuresQuarantined: false,
    });
  });

  test('auto-quarantine follows the status; with `now`, an expired pass-on-retry no longer counts', () => {
    const { service, store, clock } = makeService();
    service.updateSettings('acme', 'acme', REPO, { autoQuarantine: true });
    upload(service, [{ name: 'auto', flakyFailures: ['timeout'] }], { sha: 'e'.repeat(40) });
    upload(service, [{ name: 'auto', outcome: 'failed' }], { sha: RUN_SHA });
    expect(mergeQueueRunOutcome(store, RUN_SHA, clock.now()).status).toBe('succeeded');
    expect(mergeQueueRunOutcome(store, RUN_SHA, clock.now() + 8 * DAY).status).toBe('failed');
  });

  test('another organization’s uploads are invisible', () => {
    const { service, store } = makeService();
    upload(service, [{ name: 'q', outcome: 'failed' }], { sha: RUN_SHA }, 'globex');
    expect(store.read((tx) => quarantineVerdict(tx, 'acme', REPO, RUN_SHA))).toBeUndefined();
    expect(service.verdict('globex', REPO, RUN_SHA)).toMatchObject({ failedTests: [{ name: 'q' }] });
  });
});
