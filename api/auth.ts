/**
 * The token check every /v1 endpoint passes before its body is even parsed. The token comes in `x-api-token` (the
 * spec's header) or as `Authorization: Bearer <token>` (what Prometheus and most HTTP clients send); when both are
 * present, `x-api-token` is the one checked.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Engine } from '../engine/engine.js';
import { scopeOf, type TokenScope } from '../engine/tokens.js';
import { errorReply, type ErrorReply } from './errors.js';

export type AuthResult = { org: string; tokenId: string; scope: TokenScope } | ErrorReply;

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The presented token: `x-api-token`, else a bearer `Authorization`; undefined when neither is there. */
export function presentedToken(headers: IncomingHttpHeaders): string | undefined | { malformed: string } {
  const header = headers['x-api-token'];
  const token = Array.isArray(header) ? header[0] : header;
  if (token !== undefined && token !== '') return token;
  const authorization = headers.authorization;
  if (authorization === undefined || authorization === '') return undefined;
  const bearer = BEARER.exec(authorization);
  return bearer?.[1] ?? { malformed: 'the Authorization header must be "Bearer <token>"' };
}

export function authenticate(engine: Engine, headers: IncomingHttpHeaders): AuthResult {
  const token = presentedToken(headers);
  if (token === undefined) return errorReply('unauthorized', { token: 'missing' });
  if (typeof token !== 'string') return errorReply('unauthorized', { problem: token.malformed });
  const record = engine.findToken(token);
  return record === undefined
    ? errorReply('unauthorized', { token: 'invalid' })
    : { org: record.org, tokenId: record.id, scope: scopeOf(record) };
}
