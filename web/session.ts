/**
 * Dashboard sessions. Signing in trades an API token for a session cookie: `<payload>.<mac>`, the payload naming the
 * token's id, its organization and an expiry, the MAC an HMAC-SHA256 under the service's session key: a file of its
 * own (engine/store/keyFile.ts), 0600, never in the store, so neither a backup nor a database dump can forge a
 * session, and a session survives a restart. Rotating the key (`greenline session rotate-key`) ends every session. A session is valid while its MAC checks, it has not expired and its token
 * still exists for that organization: revoking the token ends every session opened with it. The token itself is
 * never in the cookie.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Engine } from '../engine/engine.js';

export const SESSION_COOKIE = 'greenline_session';
export const SESSION_MS = 12 * 3_600_000;

export interface Session {
  org: string;
  tokenId: string;
  expiresAt: number;
}

/** What sessions need of the engine: the stored tokens, and the key sessions are signed with. */
export type SessionEngine = Pick<Engine, 'findToken' | 'token' | 'sessionKey'>;

function sessionKey(engine: SessionEngine): Buffer {
  return engine.sessionKey();
}

function mac(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest();
}

/** The session a token opens, or undefined when no stored token matches it (compared by hash, in constant time). */
export function openSession(
  engine: SessionEngine,
  token: string,
  now: number,
): { session: Session; cookie: string } | undefined {
  const found = engine.findToken(token);
  if (found === undefined) return undefined;
  const session: Session = { org: found.org, tokenId: found.id, expiresAt: now + SESSION_MS };
  const payload = Buffer.from(JSON.stringify([session.tokenId, session.org, session.expiresAt])).toString('base64url');
  return { session, cookie: `${payload}.${mac(sessionKey(engine), payload).toString('base64url')}` };
}

/** The session a cookie value carries, if it is genuine, unexpired and its token still exists. */
export function readSession(engine: SessionEngine, cookie: string | undefined, now: number): Session | undefined {
  if (cookie === undefined) return undefined;
  const [payload, signature, extra] = cookie.split('.');
  if (payload === undefined || signature === undefined || extra !== undefined) return undefined;
  const expected = mac(sessionKey(engine), payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) return undefined;
  const [tokenId, org, expiresAt] = parsed as unknown[];
  if (typeof tokenId !== 'string' || typeof org !== 'string' || typeof expiresAt !== 'number' || expiresAt <= now)
    return undefined;
  const token = engine.token(tokenId);
  return token !== undefined && token.org === org ? { org, tokenId, expiresAt } : undefined;
}

/**
 * The session's CSRF token: an HMAC of the session under the session key (a different message than the cookie's MAC),
 * so a page's forms carry it and a forged post, which cannot read the page, cannot.
 */
export function csrfToken(engine: SessionEngine, session: Session): string {
  return mac(sessionKey(engine), `csrf\n${session.tokenId}\n${session.org}\n${session.expiresAt}`).toString(
    'base64url',
  );
}

/** Whether a posted CSRF token is the session's (compared in constant time). */
export function csrfMatches(engine: SessionEngine, session: Session, given: string | undefined): boolean {
  if (given === undefined || given === '') return false;
  const expected = Buffer.from(csrfToken(engine, session));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The value of one cookie in a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function sessionCookie(value: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_MS / 1000}${secure ? '; Secure' : ''}`;
}

export function clearedCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}
