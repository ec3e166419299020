/**
 * The failure likelihood reads CI results on the PR's head: tests failing in the JUnit uploads of its head commit,
 * less the tests already flaky or broken, raise it.
 */
import { describe, expect, test } from 'vitest';
import { writeUpload } from '../../engine/flaky/ingest.js';
import { prepareUpload } from '../../engine/flaky/prepare.js';
import { junitXml } from '../flaky/helpers.js';
import { KEY, QueueHarness } from './queueHarness.js';

type Outcome = 'passed' | 'failed';

function upload(h: QueueHarness, sha: string, cases: { name: string; outcome: Outcome }[], at: number): void {
  const meta = { repo: KEY.repo, sha, branch: 'feature', variant: '', reports: ['r.xml'] };
  const prepared = prepareUpload({ repo: KEY.repo, variant: '', reports: [{ file: 'r.xml', xml: junitXml(cases) }] });
  h.store.write((tx) => writeUpload(tx, KEY.org, meta, prepared, at));
}

function likelihoodOf(h: QueueHarness, number: number) {
  return h.store.read((tx) => tx.get('pullRequests', [h.queueId, number])?.readyLikelihood);
}

describe('failure likelihood from CI results on the head', () => {
  test('a PR whose head fails tests is likelier to fail than one whose head passes them', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 1 });
    upload(
      h,
      QueueHarness.headOf(1),
      [
        { name: 'a', outcome: 'passed' },
        { name: 'b', outcome: 'passed' },
      ],
      Date.now(),
    );
    upload(
      h,
      QueueHarness.headOf(2),
      [
        { name: 'a', outcome: 'failed' },
        { name: 'b', outcome: 'failed' },
        { name: 'c', outcome: 'failed' },
      ],
      Date.now(),
    );
    await h.submit(1, 2, 3);
    const passing = likelihoodOf(h, 1);
    const failing = likelihoodOf(h, 2);
    const unknown = likelihoodOf(h, 3);
    expect(passing?.features.headFailures).toBe(0);
    expect(unknown?.features.headFailures).toBe(0);
    expect(failing?.features.headFailures).toBe(2); // log2(1 + 3)
    expect(failing!.p).toBeGreaterThan(2 * passing!.p);
    expect(unknown!.p).toBe(passing!.p);
  });
});
