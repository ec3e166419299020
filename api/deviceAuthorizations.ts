/**
 * The device authorization grant (RFC 8628) as `greenline login` and the hosted service's CLI use it: a terminal
 * asks for a device code and a user code; a person signed in to the dashboard enters the user code at /device and
 * approves it with a scope; the terminal, polling with its device code, then receives a new token of that scope
 * once. Pending authorizations live in this process for ten minutes; a token is stored only on approval (with
 * source `device`, listed and revoked as any other).
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { TokenScope } from '../engine/tokens.js';

/** RFC 8628 6.1: a base-20 alphabet without vowels (no words) or look-alikes; 8 characters, 34 bits. */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const DEVICE_CODE_TTL_SECONDS = 600;
/** The least seconds between two polls (RFC 8628 3.2 `interval`); polling faster answers `slow_down`. */
export const POLL_INTERVAL_SECONDS = 5;
/** How many authorizations may wait at once: beyond, initiate answers 503 until some expire or complete. */
export const MAX_PENDING = 1000;

export type PollAnswer =
  | { kind: 'token'; token: string; scope: TokenScope; org: string }
  | { kind: 'error'; error: 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant' };

interface Pending {
  deviceHash: Buffer;
  userCode: string;
  /** The scope the terminal asked for: the most a person may grant it. */
  requested: TokenScope;
  expiresAt: number;
  lastPollAt: number;
  interval: number;
  outcome?: { kind: 'approved'; token: string; scope: TokenScope; org: string } | { kind: 'denied' };
}

const hash = (deviceCode: string) => createHash('sha256').update(deviceCode).digest();

/** A user code as people type it: any case, with or without the dash and spaces. */
export function normalizeUserCode(text: string): string {
  return text.toUpperCase().replace(/[\s-]/g, '');
}

export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

export class DeviceAuthorizations {
  private readonly byUserCode = new Map<string, Pending>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new authorization, or undefined when too many wait already. */
  initiate(requested: TokenScope): { deviceCode: string; userCode: string; expiresIn: number; interval: number } | undefined {
    this.expire();
    if (this.byUserCode.size >= MAX_PENDING) return undefined;
    let userCode: string;
    do {
      userCode = Array.from({ length: 8 }, () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)]).join('');
    } while (this.byUserCode.has(userCode));
    const deviceCode = randomBytes(32).toString('base64url');
    const at = this.now();
    this.byUserCode.set(userCode, {
      deviceHash: hash(deviceCode),
      userCode,
      requested,
      expiresAt: at + DEVICE_CODE_TTL_SECONDS * 1000,
      lastPollAt: 0,
      interval: POLL_INTERVAL_SECONDS,
    });
    return { deviceCode, userCode: formatUserCode(userCode), expiresIn: DEVICE_CODE_TTL_SECONDS, interval: POLL_INTERVAL_SECONDS };
  }

  /** The waiting authorization of a user code (for the approval page), or undefined. */
  pending(userCode: string): { userCode: string; requested: TokenScope; expiresAt: number } | undefined {
    this.expire();
    const entry = this.byUserCode.get(normalizeUserCode(userCode));
    if (entry === undefined || entry.outcome !== undefined) return undefined;
    return { userCode: formatUserCode(entry.userCode), requested: entry.requested, expiresAt: entry.expiresAt };
  }

  /**
   * A person's answer. `issue` makes the token (only on approval, only once): the terminal receives it at its next
   * poll. False when the code is unknown, expired or answered already.
   */
  answer(userCode: string, decision: { approve: false } | { approve: true; issue: () => { token: string; scope: TokenScope; org: string } }): boolean {
    this.expire();
    const entry = this.byUserCode.get(normalizeUserCode(userCode));
    if (entry === undefined || entry.outcome !== undefined) return false;
    entry.outcome = decision.approve ? { kind: 'approved', ...decision.issue() } : { kind: 'denied' };
    return true;
  }

  /** A terminal's poll (RFC 8628 3.4, 3.5). The token is handed out once; then the device code is spent. */
  poll(deviceCode: string): PollAnswer {
    const at = this.now();
    const presented = hash(deviceCode);
    const entry = [...this.byUserCode.values()].find((candidate) => timingSafeEqual(candidate.deviceHash, presented));
    if (entry === undefined) return { kind: 'error', error: 'invalid_grant' };
    if (at >= entry.expiresAt) {
      this.byUserCode.delete(entry.userCode);
      return { kind: 'error', error: 'expired_token' };
    }
    const outcome = entry.outcome;
    if (outcome?.kind === 'approved') {
      this.byUserCode.delete(entry.userCode);
      return { kind: 'token', token: outcome.token, scope: outcome.scope, org: outcome.org };
    }
    if (outcome?.kind === 'denied') {
      this.byUserCode.delete(entry.userCode);
      return { kind: 'error', error: 'access_denied' };
    }
    const early = at - entry.lastPollAt < entry.interval * 1000;
    entry.lastPollAt = at;
    if (early) {
      // RFC 8628 3.5: the client adds 5 seconds to its interval for good.
      entry.interval += 5;
      return { kind: 'error', error: 'slow_down' };
    }
    return { kind: 'error', error: 'authorization_pending' };
  }

  private expire(): void {
    const at = this.now();
    for (const [code, entry] of this.byUserCode) if (at >= entry.expiresAt) this.byUserCode.delete(code);
  }
}
