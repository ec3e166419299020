/**
 * `greenline backup --to FILE` and `greenline restore --from FILE`: the store of GREENLINE_DATA (or --data), or the
 * PostgreSQL store of GREENLINE_STORE when it is set. Backups of both stores are LMDB files: either restores into
 * either. `greenline migrate --from DATA_DIR --to postgres://…` copies a data folder's store into PostgreSQL.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BackupError, backupStore, restoreStore } from '../engine/store/backup.js';
import { backupPostgres, copyLmdbIntoPostgres, redact } from '../engine/store/postgres/backup.js';
import { UsageError } from './config.js';

export { BACKUP_HELP } from './helpTexts.js';

const isPostgres = (url: string | undefined): url is string => url !== undefined && /^postgres(ql)?:\/\//.test(url);

async function reporting(fn: () => Promise<string>): Promise<number> {
  // What these commands write (backups, checksums, a restored store) is the owner's only, whatever the umask was.
  process.umask(0o077);
  try {
    console.error(await fn());
    return 0;
  } catch (error) {
    if (!(error instanceof BackupError)) throw error;
    console.error(`greenline: ${error.message}`);
    return 1;
  }
}

export async function backupCommand(options: { to?: string; dataDir: string; storeUrl?: string }): Promise<number> {
  const { to, storeUrl } = options;
  if (to === undefined) throw new UsageError('backup needs --to FILE');
  if (isPostgres(storeUrl)) {
    return reporting(
      async () =>
        `backed up the PostgreSQL store ${redact(storeUrl)} to ${to} (${await backupPostgres(storeUrl, to)} bytes)`,
    );
  }
  return reporting(
    async () => `backed up the store of ${options.dataDir} to ${to} (${await backupStore(options.dataDir, to)} bytes)`,
  );
}

export async function restoreCommand(options: { from?: string; dataDir: string; storeUrl?: string }): Promise<number> {
  const { from, storeUrl } = options;
  if (from === undefined) throw new UsageError('restore needs --from FILE');
  if (isPostgres(storeUrl)) {
    return reporting(
      async () => `restored ${from} into ${redact(storeUrl)} (${await copyLmdbIntoPostgres(from, storeUrl)} entries)`,
    );
  }
  return reporting(async () => {
    const { entries, verified } = await restoreStore(from, options.dataDir);
    const checked = verified
      ? 'its checksum matched'
      : `no checksum file beside it (${path.basename(from)}.sha256): its structure was checked`;
    return `restored ${from} into ${options.dataDir} (${entries} entries; ${checked})`;
  });
}

/** Copies the data folder's store into an empty PostgreSQL database, through a consistent backup of it. */
export async function migrateCommand(options: { from?: string; to?: string }): Promise<number> {
  const { from, to } = options;
  if (from === undefined || !isPostgres(to))
    throw new UsageError('migrate needs --from DATA_DIR and --to postgres://…');
  return reporting(async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'greenline-migrate-'));
    try {
      const snapshot = path.join(dir, 'store.backup');
      await backupStore(from, snapshot);
      const entries = await copyLmdbIntoPostgres(snapshot, to);
      return `copied the store of ${from} into ${redact(to)} (${entries} entries); start the service with GREENLINE_STORE set to it`;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
