/**
 * Event logs and replay. A queue's event log (every input, in order, with its time) is the input of `greenline
 * replay`: feeding it back through a fresh engine must reproduce the same states. To tell whether it does, a log
 * carries what the recorded run produced:
 *
 * - per event (logs the simulator writes): a digest of everything the event's transaction wrote — snapshots,
 *   records, timeline, timers, the effects it decided — and a short summary of the states it wrote, to say what
 *   differs;
 * - for the whole log (also logs exported from a data folder): a digest of the queue's final state.
 *
 * The file format and its parser are in eventLogFormat.ts, the recording store and the digests in eventLogDigests.ts,
 * the replay in eventLogReplay.ts; this module is what callers import.
 */
export {
  EVENT_LOG_FORMAT,
  EVENT_LOG_VERSION,
  EventLogError,
  formatEventLog,
  parseEventLog,
  type Changes,
  type EventLog,
  type EventLogEntry,
  type EventLogHeader,
} from './eventLogFormat.js';
export { eventLogOf, exportEventLog, queueKeyOf, RecordingStore, stateDigest } from './eventLogDigests.js';
export { changesDiff, replayEventLog, type Divergence, type ReplayResult } from './eventLogReplay.js';
