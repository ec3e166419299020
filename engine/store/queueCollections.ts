/** The collections that hold a queue's data under keys starting with its id. */
export const QUEUE_COLLECTIONS = [
  'pullRequests',
  'timeline',
  'testRuns',
  'actors',
  'events',
  'timers',
  'outbox',
  'impactedTargets',
  'impactedTargetShas',
  'metricsLog',
  'metricsPrs',
  'metricsTotals',
  'mergedHeads',
  'endedPullRequests',
  'estimateSamples',
  'estimateScores',
] as const;
