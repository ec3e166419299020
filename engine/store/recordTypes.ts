/**
 * The types of the records the store keeps, one collection each (store.ts `StoreSchema`), gathered from the modules
 * that define them: the store's interface names them from here, by a plain type import. Types only: nothing of this
 * is in the JavaScript, so the modules it names may import the store's interface in turn without a loop at run time.
 */
export type { TokenRecord } from '../tokens.js';
export type { QueueRecord } from '../model/queues.js';
export type { PullRequestRecord, TimelineEntry } from '../model/pullRequests.js';
export type { TestRunRecord } from '../model/testRuns.js';
export type { StoredSnapshot } from '../model/machineSnapshots.js';
export type { LoggedEvent } from '../model/events.js';
export type { OutboxEntry } from '../model/effects.js';
export type { ImpactedTargetsRecord } from '../model/impactedTargets.js';
export type { MetricsLogEntry, MetricsTotals, PrClock } from '../metrics/records.js';
export type {
  FlakyCommitRecord,
  FlakyFailureRecord,
  FlakyMembershipRecord,
  FlakyRepoRecord,
  FlakyShaRecord,
  FlakyTestRecord,
  FlakyUploadRecord,
} from '../flaky/records.js';
export type { InboxEntry } from '../deliveries.js';
export type { DeviceCodeRecord } from '../deviceCodes.js';
export type { EndedPullRequest } from '../history/endedIndex.js';
export type { CalibrationScores, EstimateSample } from '../estimate/calibrationRecord.js';
export type { EndpointRecord, MessageRecord, OrgWebhooks } from '../notifications/records.js';
