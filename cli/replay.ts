/**
 * `greenline replay LOG`: feeds a queue's recorded event log back through a fresh engine and reports the first
 * divergence. `greenline events`: exports a queue's event log from a data folder, for replay.
 * Exit status: 0 no divergence (or exported), 1 a divergence, 2 usage or an unreadable log.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { openLmdbStore } from '../engine/store/index.js';
import {
  EventLogError,
  exportEventLog,
  formatEventLog,
  parseEventLog,
  replayEventLog,
  type ReplayResult,
} from '../engine/runtime/eventLog.js';
import { UsageError } from './config.js';
import { parseRepoArgument, UploadUsageError } from './upload.js';

export { REPLAY_HELP } from './helpTexts.js';

export async function replayCommand(path: string | undefined, options: { json?: boolean }): Promise<number> {
  if (path === undefined) throw new UsageError('replay needs the path of an event log');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read the event log ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  let result: ReplayResult;
  let describe: string;
  try {
    const log = parseEventLog(text, path);
    const queue = log.header.queue;
    describe = `${queue.repo.host}/${queue.repo.owner}/${queue.repo.name} branch ${queue.branch} (${log.header.source})`;
    result = replayEventLog(log);
  } catch (error) {
    if (error instanceof EventLogError) {
      console.error(`greenline: ${error.message}`);
      return 2;
    }
    throw error;
  }
  if (options.json === true) {
    console.log(JSON.stringify(result, null, 2));
    return result.divergence === null ? 0 : 1;
  }
  const divergence = result.divergence;
  if (divergence === null) {
    const events =
      result.checked === result.replayed
        ? `every event's outcome matches its record (${result.checked} checked)`
        : `${result.checked} of ${result.replayed} events carry a digest, and those match`;
    console.log(
      `replayed ${result.replayed} events of ${describe}: no divergence; ${events}; the final state matches.`,
    );
    return 0;
  }
  if (divergence.seq === null) {
    console.log(`replayed ${result.replayed} events of ${describe}: DIVERGENCE: ${divergence.reason}`);
  } else {
    console.log(
      `replayed ${result.replayed} events of ${describe}: DIVERGENCE at event ${divergence.seq} (${divergence.at ?? ''}):`,
    );
    console.log(`  input:  ${JSON.stringify(divergence.input)}`);
    console.log(`  ${divergence.reason}`);
  }
  return 1;
}

export async function eventsCommand(options: {
  repo?: string;
  branch?: string;
  org?: string;
  dataDir: string;
  out?: string;
}): Promise<number> {
  if (options.repo === undefined) throw new UsageError('events needs --repo host/owner/name');
  let repo;
  try {
    repo = parseRepoArgument(options.repo);
  } catch (error) {
    if (error instanceof UploadUsageError) throw new UsageError(error.message);
    throw error;
  }
  const store = openLmdbStore({ dir: options.dataDir });
  try {
    const log = exportEventLog(
      store,
      { org: options.org ?? 'default', repo, branch: options.branch ?? 'main' },
      `store: ${options.dataDir}`,
    );
    const text = formatEventLog(log);
    if (options.out === undefined) process.stdout.write(text);
    else {
      await writeFile(options.out, text);
      console.error(`wrote ${log.entries.length} events to ${options.out}`);
    }
    return 0;
  } catch (error) {
    if (error instanceof EventLogError) {
      console.error(`greenline: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    await store.close();
  }
}
