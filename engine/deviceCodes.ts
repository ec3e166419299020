/**
 * The device authorization grant's pending sign-ins (RFC 8628), kept in the store so that a restart between
 * `device-auth/initiate` and the person's approval loses nothing, and so that every process on one PostgreSQL store
 * answers the same terminal: one record per user code, and the hash of its device code pointing to it. The device
 * code itself is never stored (only its SHA-256), nor is a token's text: an approval stores the scope and the
 * organization, and the token is made in the transaction of the poll that receives it, shown once.
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { Store, WriteTx } from './store/store.js';
import { generateToken, insertToken, type TokenScope } from './tokens.js';

/** RFC 8628 6.1: a base-20 alphabet without vowels (no words) or look-alikes; 8 characters, 34 bits. */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const DEVICE_CODE_TTL_SECONDS = 600;
/** The least seconds between two polls (RFC 8628 3.2 `interval`); polling faster answers `slow_down`. */
export const POLL_INTERVAL_SECONDS = 5;
/** How many sign-ins may wait at once: beyond, initiate answers 503 until some expire or complete. */
export const MAX_PENDING = 1000;

export interface DeviceCodeRecord {
  userCode: string;
  /** SHA-256 of the device code, hex. */
  deviceHash: string;
  /** The scope the terminal asked for: the most a person may grant it. */
  requested: TokenScope;
  expiresAt: number;
  lastPollAt: number;
  interval: number;
  outcome?: { kind: 'approved'; scope: TokenScope; org: string } | { kind: 'denied' };
}

export type PollAnswer =
  | { kind: 'token'; token: string; scope: TokenScope; org: string }
  | {
      kind: 'error';
      error: 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant';
    };

const hashOf = (deviceCode: string) => createHash('sha256').update(deviceCode).digest('hex');

/** A user code as people type it: any case, with or without the dash and spaces. */
export function normalizeUserCode(text: string): string {
  return text.toUpperCase().replace(/[\s-]/g, '');
}

export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

function forget(tx: WriteTx, record: DeviceCodeRecord): void {
  tx.remove('deviceCodes', [record.userCode]);
  tx.remove('deviceCodeHashes', [record.deviceHash]);
}

/** Drops the expired sign-ins (at most MAX_PENDING of them wait, so the scan is bounded). */
function expire(tx: WriteTx, now: number): void {
  const expired = [...tx.scan('deviceCodes')].filter((entry) => now >= entry.value.expiresAt);
  for (const entry of expired) forget(tx, entry.value);
}

export class DeviceCodes {
  constructor(
    private readonly store: Store,
    private readonly now: () => number,
  ) {}

  /** A new sign-in, or undefined when too many wait already. */
  initiate(
    requested: TokenScope,
  ): { deviceCode: string; userCode: string; expiresIn: number; interval: number } | undefined {
    const deviceCode = randomBytes(32).toString('base64url');
    const at = this.now();
    const userCode = this.store.write((tx) => {
      expire(tx, at);
      if (tx.count('deviceCodes') >= MAX_PENDING) return undefined;
      let code: string;
      do {
        code = Array.from({ length: 8 }, () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)]).join('');
      } while (tx.get('deviceCodes', [code]) !== undefined);
      const record: DeviceCodeRecord = {
        userCode: code,
        deviceHash: hashOf(deviceCode),
        requested,
        expiresAt: at + DEVICE_CODE_TTL_SECONDS * 1000,
        lastPollAt: 0,
        interval: POLL_INTERVAL_SECONDS,
      };
      tx.put('deviceCodes', [code], record);
      tx.put('deviceCodeHashes', [record.deviceHash], code);
      return code;
    });
    if (userCode === undefined) return undefined;
    return {
      deviceCode,
      userCode: formatUserCode(userCode),
      expiresIn: DEVICE_CODE_TTL_SECONDS,
      interval: POLL_INTERVAL_SECONDS,
    };
  }

  /** The waiting sign-in of a user code (for the approval page), or undefined. */
  pending(userCode: string): { userCode: string; requested: TokenScope; expiresAt: number } | undefined {
    const at = this.now();
    const record = this.store.read((tx) => tx.get('deviceCodes', [normalizeUserCode(userCode)]));
    if (record === undefined || record.outcome !== undefined || at >= record.expiresAt) return undefined;
    return { userCode: formatUserCode(record.userCode), requested: record.requested, expiresAt: record.expiresAt };
  }

  /**
   * A person's answer: approved with a scope for an organization, or denied. The terminal learns it at its next
   * poll. False when the code is unknown, expired or answered already.
   */
  answer(userCode: string, decision: { approve: false } | { approve: true; scope: TokenScope; org: string }): boolean {
    const at = this.now();
    return this.store.write((tx) => {
      const record = tx.get('deviceCodes', [normalizeUserCode(userCode)]);
      if (record === undefined || record.outcome !== undefined) return false;
      if (at >= record.expiresAt) {
        forget(tx, record);
        return false;
      }
      const outcome = decision.approve
        ? { kind: 'approved' as const, scope: decision.scope, org: decision.org }
        : { kind: 'denied' as const };
      tx.put('deviceCodes', [record.userCode], { ...record, outcome });
      return true;
    });
  }

  /**
   * A terminal's poll (RFC 8628 3.4, 3.5). On approval the token is made here, in the transaction that spends the
   * device code: two polls at once (two processes) cannot both receive one.
   */
  poll(deviceCode: string): PollAnswer {
    const at = this.now();
    const presented = hashOf(deviceCode);
    return this.store.write((tx): PollAnswer => {
      const userCode = tx.get('deviceCodeHashes', [presented]);
      const record = userCode === undefined ? undefined : tx.get('deviceCodes', [userCode]);
      if (record === undefined) return { kind: 'error', error: 'invalid_grant' };
      if (at >= record.expiresAt) {
        forget(tx, record);
        return { kind: 'error', error: 'expired_token' };
      }
      const outcome = record.outcome;
      if (outcome?.kind === 'approved') {
        forget(tx, record);
        const token = generateToken();
        insertToken(tx, outcome.org, token, 'device', new Date(at).toISOString(), outcome.scope);
        return { kind: 'token', token, scope: outcome.scope, org: outcome.org };
      }
      if (outcome?.kind === 'denied') {
        forget(tx, record);
        return { kind: 'error', error: 'access_denied' };
      }
      const early = at - record.lastPollAt < record.interval * 1000;
      // RFC 8628 3.5: a client polling too fast adds 5 seconds to its interval for good.
      tx.put('deviceCodes', [record.userCode], {
        ...record,
        lastPollAt: at,
        interval: early ? record.interval + 5 : record.interval,
      });
      return { kind: 'error', error: early ? 'slow_down' : 'authorization_pending' };
    });
  }
}
