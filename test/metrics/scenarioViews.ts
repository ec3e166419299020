/**
 * What the metrics scenario tests read (test/metrics/scenarios.test.ts, batchScenarios.test.ts): the documented
 * families of one queue type as plain numbers, a quiet queue's values, the label sets, and a git host on which some
 * PRs are not mergeable until the test says so.
 */
import type { RepoRef } from '../../engine/model/queues.js';
import { SimGitHost } from '../../engine/providers/sim/simGitHost.js';
import type { PullRequestFacts } from '../../engine/providers/types.js';
import { histogramOf, type Exposition } from './helpers.js';

export const MAIN = { repo: 'acme/widgets', branch: 'main', queue_type: 'main' };
export const BISECTION = { ...MAIN, queue_type: 'bisection' };
export const QUEUE = { repo_host: 'github.com', repo: 'acme/widgets', branch: 'main' };
export const EMPTY = histogramOf();

/** The documented families of one queue type, as plain numbers. */
export function documented(scraped: Exposition, labels: Record<string, string>) {
  return {
    depth: scraped.value('mq_depth_current', labels),
    awaiting: scraped.value('mq_awaiting_mergeability', labels),
    testing: scraped.value('mq_testing_slots_active', labels),
    merged: scraped.value('mq_pr_conclusions_1h_total', { ...labels, conclusion: 'merged' }),
    failed: scraped.value('mq_pr_conclusions_1h_total', { ...labels, conclusion: 'failed' }),
    cancelled: scraped.value('mq_pr_conclusions_1h_total', { ...labels, conclusion: 'cancelled' }),
    restarts: scraped.value('mq_pr_restarts_1h_total', labels),
    wait: scraped.histogram('mq_pr_wait_duration_1h_seconds', labels),
    test: scraped.histogram('mq_pr_test_duration_1h_seconds', labels),
    inQueue: scraped.histogram('mq_pr_time_in_queue_1h_seconds', labels),
  };
}

export const quiet = {
  depth: 0,
  awaiting: 0,
  testing: 0,
  merged: 0,
  failed: 0,
  cancelled: 0,
  restarts: 0,
  wait: EMPTY,
  test: EMPTY,
  inQueue: EMPTY,
};

/** A git host on which some PRs are not mergeable until the test says so. */
export class GatedGitHost extends SimGitHost {
  readonly blocked = new Set<number>();

  override async pullRequest(repo: RepoRef, number: number, targetBranch: string): Promise<PullRequestFacts> {
    return { ...(await super.pullRequest(repo, number, targetBranch)), mergeable: !this.blocked.has(number) };
  }
}
