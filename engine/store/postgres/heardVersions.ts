/**
 * Which commits to each queue this process has seen: its own (the version each commit made, from the commit's answer)
 * and other processes' (heard: the version a commit notice carries, commitNotices.ts). Per queue, the version up to
 * which every commit was seen, and the versions seen beyond it (heard out of order). A queue's driver uses it to tell,
 * at each lease round, whether anything was committed that it did not hear of (a notice lost with the LISTEN
 * connection, a commit whose answer was lost): `behind` compares with the versions the database holds (one query for
 * every queue the driver holds) and names the queues whose outbox and timers must be read again, rather than reading
 * them all at every round.
 */

/** Versions seen beyond the contiguous ones, per queue, before the queue is counted as behind anyway. */
const MAX_AHEAD = 64;

interface Seen {
  /** Every version up to this one was seen. */
  upTo: number;
  /** Versions above `upTo + 1` seen already. */
  ahead: Set<number>;
}

/** Versions seen ahead that now follow `upTo` join it. */
function absorb(seen: Seen): void {
  while (seen.ahead.delete(seen.upTo + 1)) seen.upTo += 1;
}

export class HeardVersions {
  private readonly queues = new Map<string, Seen>();

  /** A commit to the queue made `version` (this process's, or heard). Unknown queues wait for their first check. */
  saw(queueId: string, version: number): void {
    const seen = this.queues.get(queueId);
    if (seen === undefined || version <= seen.upTo) return;
    if (version > seen.upTo + 1) {
      seen.ahead.add(version);
      // Too many gaps: a commit was missed (the next check reads the queue again).
      if (seen.ahead.size > MAX_AHEAD) this.queues.delete(queueId);
      return;
    }
    seen.upTo = version;
    absorb(seen);
  }

  /** A commit to the queue whose version is not known (a notice without one): the queue is behind until checked. */
  forget(queueId: string): void {
    this.queues.delete(queueId);
  }

  /**
   * The queues of `current` (their versions in the database now; negative: not to be trusted, an older build of the
   * cluster writes without making versions) with a commit not seen. Each is counted as seen up to its current version
   * from now on: the caller reads it again, after this check.
   */
  behind(current: ReadonlyMap<string, number>): string[] {
    const behind: string[] = [];
    for (const [queueId, version] of current) {
      const seen = this.queues.get(queueId);
      if (version >= 0 && seen !== undefined && seen.upTo >= version) continue;
      behind.push(queueId);
      if (version < 0) this.queues.delete(queueId);
      else {
        const now = { upTo: version, ahead: new Set([...(seen?.ahead ?? [])].filter((later) => later > version)) };
        absorb(now);
        this.queues.set(queueId, now);
      }
    }
    return behind;
  }
}
