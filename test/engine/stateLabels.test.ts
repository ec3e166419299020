/** stateLabelsEnabled: one `stateLabel` effect per PR whose state a transaction changed, through the outbox. */
import { describe, expect, test } from 'vitest';
import type { PullRequestState } from '../../machines/vocabulary.js';
import { SimGitHost } from '../../engine/providers/sim/simGitHost.js';
import { KEY, QueueHarness } from './queueHarness.js';

class LabellingHost extends SimGitHost {
  readonly labels: [number, PullRequestState][] = [];
  async setStateLabel(_repo: unknown, number: number, state: PullRequestState): Promise<void> {
    this.labels.push([number, state]);
  }
}

describe('state labels', () => {
  test("each change of a PR's state is labelled once, in order; a run cancelled and started again in one transaction is not", async () => {
    const host = new LabellingHost();
    const h = new QueueHarness(undefined, host);
    await h.create({ stateLabelsEnabled: true });
    await h.submit(1);
    expect(host.labels).toEqual([
      [1, 'NOT_READY'],
      [1, 'TESTING'],
    ]);
    h.engine.restartTestsOnPullRequest(KEY, 1);
    await h.engine.settle();
    expect(host.labels).toHaveLength(2);
    await h.pass(1);
    expect(host.labels.slice(2)).toEqual([
      [1, 'TESTS_PASSED'],
      [1, 'MERGED'],
    ]);
  });

  test('off by default: no label effect', async () => {
    const host = new LabellingHost();
    const h = new QueueHarness(undefined, host);
    await h.create();
    await h.submit(1);
    await h.pass(1);
    expect(host.labels).toEqual([]);
  });
});
