/**
 * Organizations and API tokens. A token is `glt_` + 32 random bytes (base64url); only its SHA-256 is stored (a
 * token has 256 bits of entropy, so a slow password hash would add nothing). Verification hashes the presented token
 * and compares it with every stored hash in constant time, without stopping at the first match.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Store, WriteTx } from './store/store.js';

/**
 * What a token may do. `read`: the queues, PRs, runs, metrics and flaky-test listings; `write`: also PR operations,
 * statuses, impacted targets and uploads; `admin`: also queue creation, settings and deletion (and the dashboard's
 * queue actions). Tokens made before scopes existed (no `scope`) keep full rights.
 */
export const TOKEN_SCOPES = ['read', 'write', 'admin'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export function scopeOf(record: TokenRecord): TokenScope {
  return record.scope ?? 'admin';
}

/** Whether a token of scope `held` may do what needs `needed`. */
export function scopeAllows(held: TokenScope, needed: TokenScope): boolean {
  return TOKEN_SCOPES.indexOf(held) >= TOKEN_SCOPES.indexOf(needed);
}

export interface TokenRecord {
  id: string;
  org: string;
  /** Absent on tokens made before scopes: full rights. */
  scope?: TokenScope;
  /** SHA-256 of the token, hex. The token itself is never stored. */
  hash: string;
  /** `device`: issued to a terminal signed in with the device authorization flow (greenline login), on a person's approval. */
  source: 'env' | 'cli' | 'bootstrap' | 'device';
  createdAt: string;
}

/** Organization names: what fits in a URL slug and a Prometheus label without escaping surprises. */
export const ORG_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const TOKEN_TEXT = /^[\x21-\x7e]{16,256}$/;

export class TokenConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenConfigError';
  }
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function generateToken(): string {
  return `glt_${randomBytes(32).toString('base64url')}`;
}

function newTokenId(): string {
  return `tok_${randomBytes(8).toString('hex')}`;
}

/** Parses `GREENLINE_API_TOKENS` ("org:token,org2:token2"); throws TokenConfigError naming the bad entry. */
export function parseTokenList(text: string): { org: string; token: string }[] {
  const entries: { org: string; token: string }[] = [];
  for (const [index, raw] of text.split(',').entries()) {
    const item = raw.trim();
    if (item === '') continue;
    const colon = item.indexOf(':');
    const org = colon < 0 ? '' : item.slice(0, colon);
    const token = colon < 0 ? '' : item.slice(colon + 1);
    if (!ORG_NAME.test(org)) {
      throw new TokenConfigError(
        `GREENLINE_API_TOKENS entry ${index + 1}: expected "org:token" with an organization name of letters, digits, '.', '_' or '-'`,
      );
    }
    if (!TOKEN_TEXT.test(token)) {
      throw new TokenConfigError(
        `GREENLINE_API_TOKENS entry ${index + 1} (organization ${org}): a token is 16 to 256 printable characters without spaces`,
      );
    }
    entries.push({ org, token });
  }
  return entries;
}

export function insertToken(
  tx: WriteTx,
  org: string,
  token: string,
  source: TokenRecord['source'],
  now: string,
  scope: TokenScope = 'admin',
): TokenRecord {
  const record: TokenRecord = { id: newTokenId(), org, scope, hash: hashToken(token), source, createdAt: now };
  tx.put('tokens', [record.id], record);
  return record;
}

/** Adds a token for an organization (the CLI's `token create`). Returns the token text, to be shown once. */
export function createToken(
  store: Store,
  org: string,
  now: string,
  scope: TokenScope = 'admin',
  source: 'cli' | 'device' = 'cli',
): { token: string; record: TokenRecord } {
  if (!ORG_NAME.test(org)) {
    throw new TokenConfigError(`invalid organization name "${org}": use letters, digits, '.', '_' or '-' (at most 64)`);
  }
  const token = generateToken();
  if (!(TOKEN_SCOPES as readonly string[]).includes(scope)) {
    throw new TokenConfigError(`invalid scope "${String(scope)}": use ${TOKEN_SCOPES.join(', ')}`);
  }
  const record = store.write((tx) => insertToken(tx, org, token, source, now, scope));
  return { token, record };
}

export function listTokens(store: Store): TokenRecord[] {
  return store.read((tx) => [...tx.scan('tokens')].map((entry) => entry.value));
}

export function revokeToken(store: Store, id: string): boolean {
  return store.write((tx) => tx.remove('tokens', [id]));
}

/**
 * Brings the stored tokens in line with the configuration at start-up, in one transaction:
 * - the tokens of `GREENLINE_API_TOKENS` replace the ones a previous start configured that way;
 * - when none is configured and the store holds none, a token for organization `default` is created and returned,
 *   for the caller to print once.
 */
export function syncConfiguredTokens(
  store: Store,
  configured: { org: string; token: string }[],
  now: string,
): { bootstrapToken?: string; count: number } {
  const wanted = new Map(configured.map((entry) => [hashToken(entry.token), entry]));
  // Tokens no longer configured go first, in a transaction of their own: removals commit even on a full store, so a
  // token taken out of GREENLINE_API_TOKENS never outlives a start (adding the new ones may then be refused).
  store.write((tx) => {
    for (const { value: record } of tx.scan('tokens')) {
      const still = record.source === 'env' ? wanted.get(record.hash) : undefined;
      if (record.source === 'env' && (still === undefined || still.org !== record.org))
        tx.remove('tokens', [record.id]);
    }
  });
  return store.write((tx) => {
    for (const { value: record } of tx.scan('tokens'))
      if (record.source === 'env' && wanted.get(record.hash)?.org === record.org) wanted.delete(record.hash);
    for (const entry of wanted.values()) insertToken(tx, entry.org, entry.token, 'env', now);
    const count = tx.count('tokens');
    if (configured.length === 0 && count === 0) {
      const token = generateToken();
      insertToken(tx, 'default', token, 'bootstrap', now);
      return { bootstrapToken: token, count: 1 };
    }
    return { count };
  });
}

/** The organization a presented token belongs to, or undefined. Constant time in the token's content. */
/** The stored token a presented one is, compared by hash with every stored token in constant time. */
export function findToken(store: Store, presented: string): TokenRecord | undefined {
  const digest = Buffer.from(hashToken(presented), 'hex');
  let found: TokenRecord | undefined;
  store.read((tx) => {
    for (const { value } of tx.scan('tokens')) {
      const stored = Buffer.from(value.hash, 'hex');
      const same = stored.length === digest.length && timingSafeEqual(stored, digest);
      if (same && found === undefined) found = value;
    }
  });
  return found;
}

export function verifyToken(store: Store, presented: string): string | undefined {
  return findToken(store, presented)?.org;
}
