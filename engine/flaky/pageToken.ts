/**
 * Page tokens: opaque to clients, `base64url(JSON state) . base64url(HMAC-SHA256)`, signed with a secret kept in
 * the store (made when the store is opened), so a forged or altered token is refused. A token is bound to its query (a hash
 * of the organization, repository, listing, filters and page size): used with another query, it is refused too.
 * The state holds the snapshot (the repository's sequence number of the first page) and the sort key of the last
 * row before the page: keyset pagination over an immutable snapshot, so pages stay stable while uploads arrive.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { engineError } from '../model/errors.js';
import { StorageFullError, type ReadTx, type Store, type WriteTx } from '../store/store.js';

export interface TokenState {
  /** Query hash. */
  q: string;
  /** Snapshot: the repository's sequence number the walk started at. */
  n: number;
  /** The id of the last row before the page ("" for the first page). */
  a: string;
}

const SECRET_KEY = ['flaky', 'pageTokenSecret'];
const secrets = new WeakMap<Store, Buffer>();

export const hasTokenSecret = (tx: ReadTx): boolean => typeof tx.get('meta', SECRET_KEY) === 'string';

/** Makes the store's token secret: when a store is opened (storeFormat.ts), so that listing never writes. */
export function createTokenSecret(tx: WriteTx): void {
  tx.put('meta', SECRET_KEY, randomBytes(32).toString('hex'));
}

/**
 * The store's token secret. Opening a store makes it (storeFormat.ts), so a listing only reads it; a store opened
 * without that gets it made here, once. A full store that has none (one of an earlier build, full when it was opened)
 * gets one for this process: its page tokens are refused after a restart, and listing never fails for it.
 */
export function tokenSecret(store: Store): Buffer {
  const cached = secrets.get(store);
  if (cached !== undefined) return cached;
  let hex = store.read((tx) => tx.get('meta', SECRET_KEY));
  if (typeof hex !== 'string') {
    try {
      hex = store.write((tx) => {
        if (!hasTokenSecret(tx)) createTokenSecret(tx);
        return tx.get('meta', SECRET_KEY);
      });
    } catch (error) {
      if (!(error instanceof StorageFullError)) throw error;
    }
  }
  const secret = typeof hex === 'string' ? Buffer.from(hex, 'hex') : randomBytes(32);
  secrets.set(store, secret);
  return secret;
}

export function queryHash(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);
}

function sign(secret: Buffer, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url').slice(0, 22);
}

export function encodePageToken(secret: Buffer, state: TokenState): string {
  const payload = Buffer.from(JSON.stringify(state)).toString('base64url');
  return `${payload}.${sign(secret, payload)}`;
}

const invalid = (message: string) => engineError('invalid_page_token', { problem: message });

/** The token's state; throws an invalid-input error when it is forged, damaged or from another query. */
export function decodePageToken(secret: Buffer, token: string, query: string): TokenState {
  const [payload, signature, extra] = token.split('.');
  if (payload === undefined || signature === undefined || extra !== undefined || payload === '') {
    throw invalid('page_query.page_token is not a page token of this service');
  }
  const expected = Buffer.from(sign(secret, payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw invalid('page_query.page_token is not a page token of this service');
  }
  let state: unknown;
  try {
    state = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalid('page_query.page_token is damaged');
  }
  const { q, n, a } = (state ?? {}) as Partial<TokenState>;
  if (typeof q !== 'string' || typeof n !== 'number' || typeof a !== 'string')
    throw invalid('page_query.page_token is damaged');
  if (q !== query) {
    throw invalid(
      'page_query.page_token belongs to another query: send the same filters and page_size as for the first page',
    );
  }
  return { q, n, a };
}

export interface PageInfo {
  totalRows: number;
  totalPages: number;
  nextPageToken: string;
  prevPageToken: string;
  lastPageToken: string;
  pageIndex: number;
}

/**
 * One page of `ids` (the snapshot's rows, sorted ascending, unique) after `after`, with the tokens around it.
 */
export function paginate(
  ids: readonly string[],
  pageSize: number,
  after: string,
  token: (after: string) => string,
): { page: string[]; info: PageInfo } {
  let start = 0;
  if (after !== '') {
    let lo = 0;
    let hi = ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((ids[mid] as string) <= after) lo = mid + 1;
      else hi = mid;
    }
    start = lo;
  }
  const page = ids.slice(start, start + pageSize);
  const totalRows = ids.length;
  const totalPages = Math.ceil(totalRows / pageSize);
  const pageIndex = Math.ceil(start / pageSize);
  const cursorBefore = (index: number) => (index <= 0 ? '' : (ids[index - 1] as string));
  const lastStart = (totalPages - 1) * pageSize;
  return {
    page,
    info: {
      totalRows,
      totalPages,
      pageIndex,
      nextPageToken: start + pageSize < totalRows ? token(cursorBefore(start + pageSize)) : '',
      prevPageToken: start > 0 ? token(cursorBefore(Math.max(0, start - pageSize))) : '',
      lastPageToken: totalPages > 0 ? token(cursorBefore(lastStart)) : '',
    },
  };
}
