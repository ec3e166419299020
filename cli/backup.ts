/** `greenline backup --to FILE` and `greenline restore --from FILE`: the store of GREENLINE_DATA (or --data). */
import { BackupError, backupStore, restoreStore } from '../engine/store/backup.js';
import { UsageError } from './config.js';

export const BACKUP_HELP = `  greenline backup --to FILE             a consistent, compacted copy of the store, taken while the service runs
  greenline restore --from FILE          put a backup into an empty data folder (then start the service on it)`;

export async function backupCommand(options: { to?: string; dataDir: string }): Promise<number> {
  if (options.to === undefined) throw new UsageError('backup needs --to FILE');
  try {
    const bytes = await backupStore(options.dataDir, options.to);
    console.error(`backed up the store of ${options.dataDir} to ${options.to} (${bytes} bytes)`);
    return 0;
  } catch (error) {
    if (!(error instanceof BackupError)) throw error;
    console.error(`greenline: ${error.message}`);
    return 1;
  }
}

export async function restoreCommand(options: { from?: string; dataDir: string }): Promise<number> {
  if (options.from === undefined) throw new UsageError('restore needs --from FILE');
  try {
    const entries = await restoreStore(options.from, options.dataDir);
    console.error(`restored ${options.from} into ${options.dataDir} (${entries} entries)`);
    return 0;
  } catch (error) {
    if (!(error instanceof BackupError)) throw error;
    console.error(`greenline: ${error.message}`);
    return 1;
  }
}
