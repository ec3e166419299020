/**
 * A backup file, checked before LMDB ever maps it. LMDB trusts its file: a page past the end of a truncated file is
 * a SIGBUS when read through the map, a damaged page may be worse. So a backup is written with a SHA-256 checksum
 * beside it (`FILE.sha256`, in `sha256sum` format, so `sha256sum -c FILE.sha256` checks it too), and a restore
 *  - copies the file to its private name while hashing it, and compares the hash with that checksum;
 *  - reads both meta pages of the copy and checks its length against the last page the newest meta names;
 * before anything opens it. Backups (and their checksums) are written 0600.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/** The mode of every file Greenline writes that holds stored data: its owner's only. */
export const PRIVATE_FILE_MODE = 0o600;

export const checksumFile = (file: string): string => `${file}.sha256`;

/** Fails with a clear error unless `file` is a non-empty regular file. */
export function requireBackupFile(file: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new BackupError(`no backup file ${file}`);
  }
  if (stat.isDirectory()) throw new BackupError(`${file} is a folder, not a backup file`);
  if (!stat.isFile()) throw new BackupError(`${file} is not a regular file`);
  if (stat.size === 0) throw new BackupError(`${file} is empty: not a backup of a Greenline store`);
}

/** Hashes `file` (SHA-256, hex). */
export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

/** Writes `file`'s checksum beside it (0600, complete or absent). */
export async function writeChecksum(file: string, finalName: string = file): Promise<void> {
  const sum = `${await sha256Of(file)}  ${path.basename(finalName)}\n`;
  const target = checksumFile(finalName);
  const partial = `${target}.partial-${process.pid}`;
  fs.writeFileSync(partial, sum, { mode: PRIVATE_FILE_MODE });
  fs.chmodSync(partial, PRIVATE_FILE_MODE);
  fs.renameSync(partial, target);
}

/** The checksum stored beside `file`, or undefined when there is none (a backup from before checksums). */
export function readChecksum(file: string): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(checksumFile(file), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new BackupError(`cannot read the checksum ${checksumFile(file)}: ${(error as Error).message}`);
  }
  const match = /^([0-9a-f]{64})\b/i.exec(text.trim());
  if (match === null) throw new BackupError(`${checksumFile(file)} is not a SHA-256 checksum file`);
  return (match[1] as string).toLowerCase();
}

/**
 * Copies `from` to `to` (created 0600) while hashing it; when `from` has a checksum beside it, the copy must match
 * it. Returns whether a checksum was verified. `to` is removed on any failure.
 */
export async function copyVerified(from: string, to: string): Promise<{ verified: boolean }> {
  requireBackupFile(from);
  const expected = readChecksum(from);
  const hash = createHash('sha256');
  try {
    fs.rmSync(to, { force: true });
    await pipeline(
      fs.createReadStream(from),
      new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          done(null, chunk);
        },
      }),
      fs.createWriteStream(to, { mode: PRIVATE_FILE_MODE, flags: 'wx' }),
    );
    fs.chmodSync(to, PRIVATE_FILE_MODE);
    const actual = hash.digest('hex');
    if (expected !== undefined && actual !== expected) {
      throw new BackupError(
        `${from} does not match its checksum (${path.basename(checksumFile(from))}): the file is truncated or damaged`,
      );
    }
    checkLmdbFile(to, from);
    return { verified: expected !== undefined };
  } catch (error) {
    fs.rmSync(to, { force: true });
    if (error instanceof BackupError) throw error;
    throw new BackupError(`cannot copy ${from}: ${(error as Error).message}`);
  }
}

/** LMDB's meta magic and the data version of the LMDB that lmdb-js builds (its meta page layout is what is read). */
const LMDB_MAGIC = 0xbeefc0de;
const LMDB_DATA_VERSION = 2;
/** Offsets in a meta page (lmdb-js's LMDB: a 24-byte page header, then MDB_meta). */
const META = { magic: 0x18, version: 0x1c, pageSize: 0x30, lastPage: 0x90, txnId: 0x98, end: 0xa0 } as const;

export interface LmdbHeader {
  pageSize: number;
  /** The last page the newest meta page names: the file holds at least (lastPage + 1) pages. */
  lastPage: number;
  txnId: bigint;
}

function readAt(handle: number, at: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  const read = fs.readSync(handle, buffer, 0, length, at);
  return buffer.subarray(0, read);
}

/**
 * Reads and checks the two meta pages of an LMDB file, and that the file is as long as they say. `shownAs` names
 * the file in messages. Throws BackupError; never maps the file.
 */
export function checkLmdbFile(file: string, shownAs: string = file): LmdbHeader {
  const size = fs.statSync(file).size;
  const notOurs = (why: string) => new BackupError(`${shownAs} is not a backup of a Greenline store (${why})`);
  const handle = fs.openSync(file, 'r');
  try {
    const first = readAt(handle, 0, META.end);
    if (first.length < META.end || first.readUInt32LE(META.magic) !== LMDB_MAGIC) throw notOurs('not an LMDB file');
    const version = first.readUInt32LE(META.version);
    if (version !== LMDB_DATA_VERSION)
      throw notOurs(`LMDB data version ${version}; this build reads ${LMDB_DATA_VERSION}`);
    const pageSize = first.readUInt32LE(META.pageSize);
    if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0)
      throw notOurs(`an impossible page size, ${pageSize}`);
    if (size < 2 * pageSize)
      throw new BackupError(
        `${shownAs} is truncated: ${size} bytes, shorter than its two meta pages (${2 * pageSize})`,
      );
    const second = readAt(handle, pageSize, META.end);
    const metas = [first, second].filter(
      (page) => page.length === META.end && page.readUInt32LE(META.magic) === LMDB_MAGIC,
    );
    // LMDB opens the meta page with the larger transaction id; the other may be stale (or torn, if never synced).
    const newest = metas.reduce((a, b) => (b.readBigUInt64LE(META.txnId) > a.readBigUInt64LE(META.txnId) ? b : a));
    const lastPage = newest.readBigUInt64LE(META.lastPage);
    const needed = (lastPage + 1n) * BigInt(pageSize);
    if (lastPage >= 2n ** 40n) throw notOurs(`an impossible last page, ${lastPage}`);
    if (BigInt(size) < needed) {
      throw new BackupError(
        `${shownAs} is truncated: ${size} bytes, but its header names ${lastPage + 1n} pages of ${pageSize} bytes (${needed} bytes)`,
      );
    }
    return { pageSize, lastPage: Number(lastPage), txnId: newest.readBigUInt64LE(META.txnId) };
  } finally {
    fs.closeSync(handle);
  }
}
