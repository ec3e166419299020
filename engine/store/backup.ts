/**
 * Backups of the LMDB store: LMDB's own copy (`mdb_env_copy2` with compaction) taken inside one read transaction,
 * so it is a consistent snapshot of a store that a running service keeps writing (readers take no lock and never
 * block the writer). The copy is written beside its destination and renamed into place: a backup file is complete
 * or absent. A restore puts a backup into an empty data folder, after checking that it opens as a store.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open } from 'lmdb';
import { LMDB_FILE, openLmdbStore } from './lmdbStore.js';

export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/** Copies the store of `dataDir` into `to` (compacted). Returns the backup's size in bytes. */
export async function backupStore(dataDir: string, to: string): Promise<number> {
  const file = path.join(dataDir, LMDB_FILE);
  if (!fs.existsSync(file)) throw new BackupError(`no store in ${dataDir} (${LMDB_FILE} is missing)`);
  if (fs.existsSync(to) && fs.statSync(to).isDirectory()) throw new BackupError(`${to} is a folder; name a file`);
  const partial = `${to}.partial-${process.pid}`;
  fs.rmSync(partial, { force: true });
  const env = open({ path: file, readOnly: true });
  try {
    await env.backup(partial, true);
    fs.renameSync(partial, to);
  } finally {
    fs.rmSync(partial, { force: true });
    await env.close();
  }
  return fs.statSync(to).size;
}

/** LMDB's meta magic (0xBEEFC0DE, little-endian) in the first meta page, and room for the two meta pages. */
const LMDB_MAGIC = 0xbeefc0de;
export function looksLikeLmdb(file: string): boolean {
  const size = fs.statSync(file).size;
  if (size < 8192) return false;
  const head = Buffer.alloc(64);
  const handle = fs.openSync(file, 'r');
  try {
    fs.readSync(handle, head, 0, head.length, 0);
  } finally {
    fs.closeSync(handle);
  }
  for (let at = 16; at <= 32; at += 4) if (head.readUInt32LE(at) === LMDB_MAGIC) return true;
  return false;
}

/** Puts the backup `from` into `dataDir` as its store; the folder must hold no store. Returns the entries restored. */
export async function restoreStore(from: string, dataDir: string): Promise<number> {
  if (!fs.existsSync(from) || !fs.statSync(from).isFile()) throw new BackupError(`no backup file ${from}`);
  const target = path.join(dataDir, LMDB_FILE);
  if (fs.existsSync(target)) {
    throw new BackupError(`${dataDir} already holds a store (${LMDB_FILE}); restore into an empty data folder`);
  }
  // LMDB trusts its file: one that is not an LMDB environment would crash the process, so check its meta page first.
  if (!looksLikeLmdb(from)) throw new BackupError(`${from} is not a backup of a Greenline store (not an LMDB file)`);
  fs.mkdirSync(dataDir, { recursive: true });
  const partial = path.join(dataDir, `${LMDB_FILE}.restoring`);
  fs.copyFileSync(from, partial);
  let entries: number;
  try {
    // It must open as a store of this service (LMDB refuses anything else) before it takes the store's place.
    const probe = openLmdbStore({ dir: dataDir, fileName: path.basename(partial) });
    try {
      const stats = probe.stats();
      if (probe.read((tx) => tx.get('meta', ['format'])) === undefined) throw new BackupError(`${from} is not a backup of a Greenline store`);
      entries = Object.values(stats.entries).reduce((sum, count) => sum + count, 0);
    } finally {
      await probe.close();
    }
  } catch (error) {
    fs.rmSync(partial, { force: true });
    fs.rmSync(`${partial}-lock`, { force: true });
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${from} is not a backup of a Greenline store (${(error as Error).message})`);
  }
  fs.rmSync(`${partial}-lock`, { force: true });
  fs.renameSync(partial, target);
  return entries;
}
