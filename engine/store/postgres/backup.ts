/**
 * Backups of the PostgreSQL store in the LMDB store's backup format: one LMDB file holding every entry, copied from
 * one REPEATABLE READ snapshot (consistent while the service runs), written beside its destination and renamed into
 * place. So a backup of either store restores into either store (`greenline restore`), and `greenline migrate`
 * is the same copy from a data folder. (pg_dump of the database is a backup too: see docs/postgres.md.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BackupError, formatProblem, placeBackup } from '../backup.js';
import { copyVerified } from '../backupFile.js';
import { probeBackup } from '../backupProbe.js';
import { copyStore, StoreCopyError } from '../copy.js';
import { LMDB_FILE, openLmdbStore } from '../lmdbStore.js';
import { openPostgresStore } from '../postgresStore.js';
import type { Store } from '../store.js';

/** A copy scans and writes whole collections: its statements may take longer than a request's. */
const BULK_TIMEOUTS = { statementMs: 10 * 60_000 };

const total = (counts: Record<string, number>): number => Object.values(counts).reduce((sum, n) => sum + n, 0);

async function closeAll(...stores: (Store | undefined)[]): Promise<void> {
  for (const store of stores) await store?.close().catch(() => undefined);
}

/** Copies the store of the database at `url` into the backup file `to`. Returns its size in bytes. */
export async function backupPostgres(url: string, to: string): Promise<number> {
  if (fs.existsSync(to) && fs.statSync(to).isDirectory()) throw new BackupError(`${to} is a folder; name a file`);
  const partial = `${to}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  const source = openPostgresStore({ url, applicationName: 'greenline-backup', timeouts: BULK_TIMEOUTS });
  let target: Store | undefined;
  try {
    target = openLmdbStore({ dir: partial });
    copyStore(source, target);
    await closeAll(target);
    target = undefined;
    await placeBackup(path.join(partial, LMDB_FILE), to);
  } finally {
    await closeAll(target, source);
    fs.rmSync(partial, { recursive: true, force: true });
  }
  return fs.statSync(to).size;
}

/** Copies a data folder's LMDB store (or a backup file of either store) into the empty database at `url`. */
export async function copyLmdbIntoPostgres(file: string, url: string): Promise<number> {
  // Opened from a private copy, checked (checksum, length, header) before LMDB maps it: opening writes a lock file
  // beside it, and the original stays untouched.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'greenline-copy-'));
  let source: Store | undefined;
  let target: Store | undefined;
  try {
    await copyVerified(file, path.join(dir, LMDB_FILE));
    await probeBackup(path.join(dir, LMDB_FILE), file);
    source = openLmdbStore({ dir });
    const problem = formatProblem(
      file,
      source.read((tx) => tx.get('meta', ['format'])),
    );
    if (problem !== undefined) throw new BackupError(problem);
    target = openPostgresStore({ url, applicationName: 'greenline-restore', timeouts: BULK_TIMEOUTS });
    return total(copyStore(source, target));
  } catch (error) {
    if (error instanceof StoreCopyError) throw new BackupError(`the database ${redact(url)}: ${error.message}`);
    throw error;
  } finally {
    await closeAll(source, target);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A URL without its password, for messages. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://…';
  }
}
