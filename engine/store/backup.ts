/**
 * Backups of the LMDB store: LMDB's own copy (`mdb_env_copy2` with compaction) taken inside one read transaction,
 * so it is a consistent snapshot of a store that a running service keeps writing (readers take no lock and never
 * block the writer). The copy is written beside its destination (0600) and renamed into place: a backup file is
 * complete or absent; its SHA-256 checksum is written beside it (backupFile.ts). A restore puts a backup into an
 * empty data folder, after checking the file (checksum, length, header: backupFile.ts), then that another process
 * reads every entry of it (backupProbe.ts), then that it opens as a store of this format. Every failure leaves nothing behind in the data folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open } from 'lmdb';
import { STORE_FORMAT } from '../storeFormat.js';
import { BackupError, checksumFile, copyVerified, PRIVATE_FILE_MODE, writeChecksum } from './backupFile.js';
import { LMDB_FILE, openLmdbStore } from './lmdbStore.js';
import { probeBackup } from './backupProbe.js';
import { secureDataDir } from './fileModes.js';

export { BackupError } from './backupFile.js';

/** Copies the store of `dataDir` into `to` (compacted, 0600, with `to.sha256`). Returns the backup's size in bytes. */
export async function backupStore(dataDir: string, to: string): Promise<number> {
  const file = path.join(dataDir, LMDB_FILE);
  if (!fs.existsSync(file)) throw new BackupError(`no store in ${dataDir} (${LMDB_FILE} is missing)`);
  if (fs.existsSync(to) && fs.statSync(to).isDirectory()) throw new BackupError(`${to} is a folder; name a file`);
  const partial = `${to}.partial-${process.pid}`;
  fs.rmSync(partial, { force: true });
  const env = open({ path: file, readOnly: true });
  try {
    await env.backup(partial, true);
    await placeBackup(partial, to);
  } finally {
    fs.rmSync(partial, { force: true });
    await env.close();
  }
  return fs.statSync(to).size;
}

/** Makes the finished copy `partial` the backup `to`: 0600, the old checksum gone, renamed, its checksum beside it. */
export async function placeBackup(partial: string, to: string): Promise<void> {
  fs.chmodSync(partial, PRIVATE_FILE_MODE);
  // A crash between the steps leaves a backup without a checksum (restored after a check of its structure), never
  // a backup beside another backup's checksum.
  fs.rmSync(checksumFile(to), { force: true });
  fs.renameSync(partial, to);
  await writeChecksum(to);
}

/** What a store's format says of a backup of it: undefined when this build reads it, else why not. */
export function formatProblem(from: string, format: unknown): string | undefined {
  if (format === undefined) return `${from} is not a backup of a Greenline store (it holds no store format)`;
  if (format === STORE_FORMAT) return undefined;
  if (typeof format === 'number' && format > STORE_FORMAT) {
    return `${from} is a backup of store format ${format}, newer than this build reads (${STORE_FORMAT}); restore it with a newer greenline`;
  }
  return `${from} is a backup of store format ${String(format)}; this build reads ${STORE_FORMAT}`;
}

export interface Restored {
  entries: number;
  /** Whether the backup's checksum was there and matched (else only its structure was checked). */
  verified: boolean;
}

/** Puts the backup `from` into `dataDir` as its store; the folder must hold no store. */
export async function restoreStore(from: string, dataDir: string): Promise<Restored> {
  const target = path.join(dataDir, LMDB_FILE);
  if (fs.existsSync(target)) {
    throw new BackupError(`${dataDir} already holds a store (${LMDB_FILE}); restore into an empty data folder`);
  }
  secureDataDir(dataDir);
  const partial = path.join(dataDir, `${LMDB_FILE}.restoring`);
  const cleanUp = () => {
    fs.rmSync(partial, { force: true });
    fs.rmSync(`${partial}-lock`, { force: true });
  };
  // A restore that was killed may have left its copy: it is this command's own file.
  cleanUp();
  try {
    const { verified } = await copyVerified(from, partial);
    await probeBackup(partial, from);
    // It must open as a store of this service and format before it takes the store's place.
    const probe = openLmdbStore({ dir: dataDir, fileName: path.basename(partial) });
    let entries: number;
    try {
      const problem = formatProblem(
        from,
        probe.read((tx) => tx.get('meta', ['format'])),
      );
      if (problem !== undefined) throw new BackupError(problem);
      entries = Object.values(probe.stats().entries).reduce((sum, count) => sum + count, 0);
    } finally {
      await probe.close();
    }
    fs.rmSync(`${partial}-lock`, { force: true });
    fs.renameSync(partial, target);
    return { entries, verified };
  } catch (error) {
    cleanUp();
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${from} is not a backup of a Greenline store (${(error as Error).message})`);
  }
}
