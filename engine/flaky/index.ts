/** The flaky-test capability: ingestion, identity, detection, quarantine and listings. */
export { FlakyTests, flakyTestsFor, MAX_TEST_CASES_PER_UPLOAD, type UploadInput } from './service.js';
export {
  quarantineVerdict,
  describeVerdict,
  isQuarantined,
  quarantineSetting,
  type QuarantineVerdict,
} from './quarantine.js';
export { testId, repoId, repoSlug, TEST_ID_NAMESPACE, type RepoRef, type TestIdentity } from './identity.js';
export { parseJUnitReport, ReportError, type ParsedReport, type ParsedCase } from './junit.js';
export { reportStats, type ReportStats } from './reportStats.js';
export { normalizeFailureMessage } from './messages.js';
export { parseCodeowners, ownersOf } from './codeowners.js';
export { DEFAULT_SETTINGS, type RepoSettings, type SettingsPatch } from './settings.js';
export type { UploadResult } from './ingest.js';
export type {
  FailingQuery,
  FailingRow,
  Listing,
  PageQuery,
  QuarantinedRow,
  TestRow,
  UnhealthyQuery,
} from './listings.js';
export type { PageInfo } from './pageToken.js';
export type { FlakyTestRecord, QuarantineOverride, StatusValue } from './records.js';
