/**
 * Every metric family Greenline exposes: name, type, labels, help and buckets. The documented `mq_*` set comes from
 * the addendum (Metrics); the `greenline_*` families are ours. docs/metrics.md explains each one; a test checks that
 * it lists every family here.
 */

/** The buckets of the documented duration histograms, in seconds (the addendum). */
export const DURATION_BUCKETS = [60, 300, 600, 900, 1800, 3600, 5400, 7200] as const;
/** PRs per test run. */
export const BATCH_SIZE_BUCKETS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32] as const;

export type FamilyType = 'gauge' | 'counter' | 'histogram';

export interface Family {
  name: string;
  type: FamilyType;
  labels: readonly string[];
  help: string;
  buckets?: readonly number[];
}

/** The labels of every documented series. */
export const MQ_LABELS = ['repo', 'branch', 'queue_type'] as const;
/** The labels of every per-queue `greenline_*` series (the host too: two hosts may hold the same owner/name). */
export const QUEUE_LABELS = ['repo_host', 'repo', 'branch'] as const;

const family = <const F extends Family>(f: F): F => f;

export const FAMILIES = {
  // The documented set (addendum, Metrics).
  depth: family({
    name: 'mq_depth_current',
    type: 'gauge',
    labels: MQ_LABELS,
    help: 'PRs in the queue now, not counting those waiting to become ready (PENDING, TESTING, TESTS_PASSED, PENDING_FAILURE).',
  }),
  awaitingMergeability: family({
    name: 'mq_awaiting_mergeability',
    type: 'gauge',
    labels: MQ_LABELS,
    help: 'PRs in the queue now waiting to become ready (NOT_READY).',
  }),
  testingSlots: family({
    name: 'mq_testing_slots_active',
    type: 'gauge',
    labels: MQ_LABELS,
    help: 'PRs in TESTING now.',
  }),
  conclusions1h: family({
    name: 'mq_pr_conclusions_1h_total',
    type: 'gauge',
    labels: [...MQ_LABELS, 'conclusion'],
    help: 'PRs that left the queue in the last hour, by conclusion (merged, failed, cancelled). A rolling one-hour gauge.',
  }),
  restarts1h: family({
    name: 'mq_pr_restarts_1h_total',
    type: 'gauge',
    labels: MQ_LABELS,
    help: 'PRs moved from TESTING back to PENDING in the last hour. A rolling one-hour gauge.',
  }),
  wait1h: family({
    name: 'mq_pr_wait_duration_1h_seconds',
    type: 'histogram',
    labels: MQ_LABELS,
    help: 'Waits that ended in the last hour: time from becoming ready to first starting tests (or to leaving the queue untested), NOT_READY time excluded.',
    buckets: DURATION_BUCKETS,
  }),
  test1h: family({
    name: 'mq_pr_test_duration_1h_seconds',
    type: 'histogram',
    labels: MQ_LABELS,
    help: 'PRs that left the queue in the last hour after testing: their total time in TESTING.',
    buckets: DURATION_BUCKETS,
  }),
  timeInQueue1h: family({
    name: 'mq_pr_time_in_queue_1h_seconds',
    type: 'histogram',
    labels: MQ_LABELS,
    help: 'PRs that left the queue in the last hour after becoming ready: their time in the queue, NOT_READY time excluded.',
    buckets: DURATION_BUCKETS,
  }),

  // Ours: the queue's configuration.
  queueInfo: family({
    name: 'greenline_queue_info',
    type: 'gauge',
    labels: [...QUEUE_LABELS, 'state', 'mode'],
    help: 'One series per queue, always 1, labelled with the queue state and mode.',
  }),

  // Ours: cost and policy, cumulative since the queue was created.
  runsStarted: family({
    name: 'greenline_ci_runs_started_total',
    type: 'counter',
    labels: [...QUEUE_LABELS, 'queue_type'],
    help: 'Test runs started; queue_type="bisection" counts the runs of bisections.',
  }),
  runsFinished: family({
    name: 'greenline_ci_runs_finished_total',
    type: 'counter',
    labels: [...QUEUE_LABELS, 'queue_type', 'status'],
    help: 'Test runs that ended, by final status (succeeded, failed, cancelled).',
  }),
  runSeconds: family({
    name: 'greenline_ci_run_seconds_total',
    type: 'counter',
    labels: [...QUEUE_LABELS, 'queue_type', 'status'],
    help: 'CI time of the test runs that ended: from the creation of each run to its end, summed.',
  }),
  bisections: family({
    name: 'greenline_bisections_total',
    type: 'counter',
    labels: QUEUE_LABELS,
    help: 'Bisections begun: failed batches split in halves to find the faulty PRs.',
  }),
  conclusions: family({
    name: 'greenline_pr_conclusions_total',
    type: 'counter',
    labels: [...QUEUE_LABELS, 'queue_type', 'conclusion'],
    help: 'PRs that left the queue, by conclusion (merged, failed, cancelled).',
  }),
  restarts: family({
    name: 'greenline_pr_restarts_total',
    type: 'counter',
    labels: [...QUEUE_LABELS, 'queue_type'],
    help: 'PRs moved from TESTING back to PENDING.',
  }),
  optimisticMerges: family({
    name: 'greenline_optimistic_merges_total',
    type: 'counter',
    labels: QUEUE_LABELS,
    help: 'PRs merged because a passing run behind them that contained them vouched for them (canOptimisticallyMerge).',
  }),
  directMerges: family({
    name: 'greenline_direct_merges_total',
    type: 'counter',
    labels: QUEUE_LABELS,
    help: 'PRs merged without a test run (directMergeMode always).',
  }),
  rescues: family({
    name: 'greenline_pending_failure_rescues_total',
    type: 'counter',
    labels: [...QUEUE_LABELS, 'outcome'],
    help: 'PRs that left PENDING_FAILURE without failing: retested (a PR ahead was the cause, or a restart) or merged (vouched for).',
  }),
  quarantinedFailures: family({
    name: 'greenline_quarantined_failures_ignored_total',
    type: 'counter',
    labels: [...QUEUE_LABELS, 'queue_type'],
    help: 'Test failures ignored because the tests are quarantined, over the test runs that ended.',
  }),

  // Ours: the facts of the one-hour histograms, cumulative (they only go up, so rate() and increase() read them).
  wait: family({
    name: 'greenline_pr_wait_duration_seconds',
    type: 'histogram',
    labels: [...QUEUE_LABELS, 'queue_type'],
    help: 'Waits that ended, since the queue began: time from becoming ready to first starting tests (or to leaving the queue untested), NOT_READY time excluded.',
    buckets: DURATION_BUCKETS,
  }),
  test: family({
    name: 'greenline_pr_test_duration_seconds',
    type: 'histogram',
    labels: [...QUEUE_LABELS, 'queue_type'],
    help: 'PRs that left the queue after testing, since the queue began: their total time in TESTING.',
    buckets: DURATION_BUCKETS,
  }),
  timeInQueue: family({
    name: 'greenline_pr_time_in_queue_seconds',
    type: 'histogram',
    labels: [...QUEUE_LABELS, 'queue_type'],
    help: 'PRs that left the queue after becoming ready, since the queue began: their time in the queue, NOT_READY time excluded.',
    buckets: DURATION_BUCKETS,
  }),
  batchSize: family({
    name: 'greenline_batch_size',
    type: 'histogram',
    labels: [...QUEUE_LABELS, 'queue_type'],
    help: 'PRs tested together by each test run started, since the queue began.',
    buckets: BATCH_SIZE_BUCKETS,
  }),

  // Ours: cost over the last hour.
  runsPerMerge1h: family({
    name: 'greenline_ci_runs_per_merged_pr_1h',
    type: 'gauge',
    labels: QUEUE_LABELS,
    help: 'Test runs that ended in the last hour per PR merged in the last hour; absent when none merged.',
  }),
  secondsPerMerge1h: family({
    name: 'greenline_ci_seconds_per_merged_pr_1h',
    type: 'gauge',
    labels: QUEUE_LABELS,
    help: 'CI seconds of the test runs that ended in the last hour per PR merged in the last hour; absent when none merged.',
  }),
  batchSize1h: family({
    name: 'greenline_batch_size_1h',
    type: 'histogram',
    labels: [...QUEUE_LABELS, 'queue_type'],
    help: 'PRs tested together by each test run started in the last hour.',
    buckets: BATCH_SIZE_BUCKETS,
  }),

  // Ours: the engine's health.
  events: family({
    name: 'greenline_queue_events_total',
    type: 'counter',
    labels: QUEUE_LABELS,
    help: "Inputs the engine committed to the queue's event log.",
  }),
  eventLag: family({
    name: 'greenline_event_lag_seconds',
    type: 'gauge',
    labels: QUEUE_LABELS,
    help: "Age of the oldest effect in the queue's outbox (decided, not yet done: git host calls, merges, CI starts); 0 when none.",
  }),
  outboxEffects: family({
    name: 'greenline_outbox_effects',
    type: 'gauge',
    labels: QUEUE_LABELS,
    help: "Effects in the queue's outbox, decided and not yet done.",
  }),
  actors: family({
    name: 'greenline_active_actors',
    type: 'gauge',
    labels: [...QUEUE_LABELS, 'kind'],
    help: 'Live actors of the queue: enqueued PRs (kind pull_request) and test runs in progress (kind test_run).',
  }),
  webhookDeliveries: family({
    name: 'greenline_webhook_deliveries_total',
    type: 'counter',
    labels: ['outcome'],
    help: "Attempts at delivering the organization's outgoing webhooks, by outcome: delivered (2xx), retried (failed, tried again later), failed (the last attempt failed: given up).",
  }),
  webhookPending: family({
    name: 'greenline_webhook_messages_pending',
    type: 'gauge',
    labels: [],
    help: 'Outgoing webhook messages of the organization not yet delivered nor given up.',
  }),
  storeSize: family({
    name: 'greenline_store_size_bytes',
    type: 'gauge',
    labels: [],
    help: 'Bytes the store occupies (the LMDB file; for the in-memory store, an estimate). Service-wide.',
  }),
} as const satisfies Record<string, Family>;

export const FAMILY_LIST: readonly Family[] = Object.values(FAMILIES);
