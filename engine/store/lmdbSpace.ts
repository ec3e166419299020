/**
 * How full the LMDB store is, and the refusals that keep it within its limits: the disk's reserve, and the size
 * the service was given (GREENLINE_MAX_DB_SIZE). Used bytes are the store's live pages (every database's branch,
 * leaf and overflow pages; pages freed by deletions are reused by later writes).
 *
 * The store is full once its data is within `fullMargin` of the limit (or its disk under the reserve): then only
 * transactions that free room commit (see begin). Any transaction is refused at its commit when it would bring the data over
 * the limit (one large write could otherwise overshoot it by its whole size). A transaction that only reads is
 * never refused: a full store still starts, still answers, and frees space by retention.
 */
import fs from 'node:fs';
import { StorageFullError } from './store.js';

const DISK_RESERVE_BYTES = 512 * 1024;
/** Free space is asked of the filesystem at most this often while there is plenty of it. */
const DISK_CHECK_MS = 1_000;
/** Below this much free space, it is asked before every write. */
const DISK_NEAR_FULL_BYTES = 64 * 1024 * 1024;

/** The room under the limit at which the store counts as full: 1/64 of it, at least 8 pages of 4 KiB. */
export function fullMargin(maxBytes: number): number {
  return Math.max(Math.floor(maxBytes / 64), 8 * 4096);
}

export interface LmdbSpaceOptions {
  dir: string;
  maxBytes: number | undefined;
  diskReserveBytes: number | undefined;
  /** Bytes of the live pages, as the current transaction sees them (`inWrite`: called inside a write transaction). */
  liveBytes: (inWrite: boolean) => number;
}

export class LmdbSpace {
  private disk = { free: Number.POSITIVE_INFINITY, checkedAt: Number.NEGATIVE_INFINITY };
  private readonly reserve: number;

  constructor(private readonly options: LmdbSpaceOptions) {
    this.reserve = options.diskReserveBytes ?? DISK_RESERVE_BYTES;
  }

  private diskFull(fresh: boolean): string | undefined {
    const now = Date.now();
    if (fresh || this.disk.free < DISK_NEAR_FULL_BYTES || now - this.disk.checkedAt >= DISK_CHECK_MS) {
      try {
        const stats = fs.statfsSync(this.options.dir);
        this.disk = { free: stats.bavail * stats.bsize, checkedAt: now };
      } catch {
        return undefined; // a filesystem that cannot say: LMDB's own ENOSPC is the last word
      }
    }
    if (this.disk.free < this.reserve)
      return `the disk holding the store has ${this.disk.free} bytes free, under the ${this.reserve} it keeps in reserve`;
    return undefined;
  }

  /** Why the store refuses writes now, or undefined when it takes them. `fresh`: ask the filesystem now. */
  fullReason(fresh = false): string | undefined {
    const disk = this.diskFull(fresh);
    if (disk !== undefined) return disk;
    const max = this.options.maxBytes;
    if (max === undefined) return undefined;
    const used = this.options.liveBytes(false);
    if (used + fullMargin(max) > max)
      return `the store holds ${used} bytes of its limit of ${max} (GREENLINE_MAX_DB_SIZE): it is full`;
    return undefined;
  }

  /**
   * At the start of a write transaction; its `beforeCommit` (called inside it, when it wrote) throws StorageFullError,
   * aborting it, when it would bring the data over the limit, or when the store is full and it does not free room.
   * At the limit, a transaction frees room when it removed something and leaves no more live pages than it found
   * (retention's do, a submit does not). On a disk under its reserve only removals commit (a revoked token), since
   * freed pages give no disk back and LMDB must not meet a full disk.
   */
  begin(): { beforeCommit(changes: { put: boolean; removed: boolean }): void } {
    const disk = this.diskFull(false);
    const full = disk ?? this.fullReason();
    const before = full === undefined ? 0 : this.options.liveBytes(false);
    return {
      beforeCommit: ({ put, removed }) => {
        const max = this.options.maxBytes;
        if (full === undefined && max === undefined) return;
        if (disk !== undefined && put) throw new StorageFullError(disk);
        const used = this.options.liveBytes(true);
        if (full !== undefined && !(removed && used <= before)) throw new StorageFullError(full);
        if (max !== undefined && used > max) {
          throw new StorageFullError(
            `this write would bring the store to ${used} bytes, over its limit of ${max} (GREENLINE_MAX_DB_SIZE); nothing of it was stored`,
          );
        }
      },
    };
  }
}
