/** The `x-api-token` check every /v1 endpoint passes before its body is even parsed. */
import type { Store } from '../engine/store/store.js';
import { verifyToken } from '../engine/tokens.js';
import { errorReply, type ErrorReply } from './errors.js';

export type AuthResult = { org: string } | ErrorReply;

export function authenticate(store: Store, header: string | string[] | undefined): AuthResult {
  const token = Array.isArray(header) ? header[0] : header;
  if (token === undefined || token === '') return errorReply(401, 'missing x-api-token header');
  const org = verifyToken(store, token);
  return org === undefined ? errorReply(401, 'invalid API token') : { org };
}
