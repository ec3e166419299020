/**
 * The event log file (JSON Lines): its types, and how it is written and read. See eventLog.ts for what a log carries.
 *
 * File format: a header line, then one line per event.
 *   {"log":"greenline-events","version":1,"queue":{org,repo,branch},"queueId":"q_…","events":N,"finalDigest":"…","source":"…"}
 *   {"seq":0,"at":"2026-…Z","input":{"type":"created",…},"digest":"…","changes":{"prs":{"3":"TESTING"},…}}
 */
import { z } from 'zod';
import type { QueueKey } from '../engineTypes.js';
import type { LoggedEvent } from '../model/events.js';

export const EVENT_LOG_FORMAT = 'greenline-events';
export const EVENT_LOG_VERSION = 1;

/** What an event's transaction wrote, in brief: the states of the PRs and runs it wrote, and the queue's. */
export interface Changes {
  queue?: string;
  prs?: Record<string, string>;
  runs?: Record<string, string>;
}

export interface EventLogEntry extends LoggedEvent {
  digest?: string;
  changes?: Changes;
  /**
   * For a `targetsSet` input: the uploaded targets. The engine's log names an upload by its digest only (a list can
   * take megabytes); the log file carries the list so that a replay can upload it again.
   */
  targets?: string[] | 'ALL';
}

export interface EventLogHeader {
  log: typeof EVENT_LOG_FORMAT;
  version: typeof EVENT_LOG_VERSION;
  queue: QueueKey;
  queueId: string;
  events: number;
  /** Digest of the queue's state after the last event. */
  finalDigest: string;
  /** Where the log comes from (`sim: <scenario> / <configuration>`, `store: <folder>`). */
  source: string;
  /**
   * Present when retention cut the log (engine/retention): the events below `seq` older than `before` were deleted,
   * but for the settings changes. Such a log lists what is kept; it does not replay (replay says so).
   */
  startsAt?: { seq: number; before: string };
}

export interface EventLog {
  header: EventLogHeader;
  entries: EventLogEntry[];
}

export class EventLogError extends Error {}

export function formatEventLog(log: EventLog): string {
  return `${[log.header, ...log.entries].map((line) => JSON.stringify(line)).join('\n')}\n`;
}

const RepoSchema = z.object({ host: z.string().min(1), owner: z.string().min(1), name: z.string().min(1) });
const HeaderSchema = z.object({
  log: z.literal(EVENT_LOG_FORMAT),
  version: z.literal(EVENT_LOG_VERSION),
  queue: z.object({ org: z.string().min(1), repo: RepoSchema, branch: z.string().min(1) }),
  queueId: z.string().regex(/^q_[0-9a-f]+$/),
  events: z.number().int().min(0),
  finalDigest: z.string().regex(/^[0-9a-f]{64}$/),
  source: z.string(),
  startsAt: z.object({ seq: z.number().int().min(0), before: z.iso.datetime() }).optional(),
});
/** The input itself is the engine's to check as it replays it (an input it does not know is a divergence). */
const EntrySchema = z.object({
  seq: z.number().int().min(0),
  at: z.iso.datetime(),
  input: z.looseObject({ type: z.string().min(1) }),
  digest: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  changes: z
    .object({
      queue: z.string().optional(),
      prs: z.record(z.string(), z.string()).optional(),
      runs: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  targets: z.union([z.array(z.string()), z.literal('ALL')]).optional(),
});

export function parseEventLog(text: string, source = 'the log'): EventLog {
  const lines = text
    .split('\n')
    .map((line, index) => ({ line, number: index + 1 }))
    .filter(({ line }) => line.trim() !== '');
  const parseLine = <T>(schema: z.ZodType<T>, line: string, number: number): T => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new EventLogError(`${source}, line ${number}: not JSON (${(error as Error).message})`);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const problems = parsed.error.issues
        .map((issue) => `${issue.path.join('.') || '(line)'}: ${issue.message}`)
        .join('; ');
      throw new EventLogError(`${source}, line ${number}: ${problems}`);
    }
    return parsed.data;
  };
  if (lines.length === 0) throw new EventLogError(`${source} is empty`);
  const [first, ...rest] = lines as [{ line: string; number: number }, ...{ line: string; number: number }[]];
  const header = parseLine(HeaderSchema, first.line, first.number) as EventLogHeader;
  const entries = rest.map(({ line, number }) => parseLine(EntrySchema, line, number) as EventLogEntry);
  if (entries.length !== header.events) {
    throw new EventLogError(
      `${source}: the header announces ${header.events} events, the file holds ${entries.length}`,
    );
  }
  return { header, entries };
}
