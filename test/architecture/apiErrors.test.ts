/**
 * Errors in the catalogue for the API layer too: the API's raise sites name a code and pass values
 * (`errorReply(code, values)`, `httpError(code, values)`); the words are the catalogue's templates
 * (engine/model/errors.ts, httpErrors.ts). No raise site writes a message, and none makes a tRPC error of its own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { ERROR_CODES, ERRORS, errorMessage, type ErrorSpec } from '../../engine/model/errors.js';

const API = new URL('../../api/', import.meta.url);

/** The source without its comments. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

const MESSAGE_AT_RAISE_SITE = [
  /errorReply\(\s*'[a-z_]+',\s*['"`]/,
  /httpError\(\s*'[a-z_]+',\s*['"`]/,
  /new HttpError\(/,
  /new TRPCError\(/,
  /oauthError\([^)]*,\s*['"`]/,
];

test('no raise site in api/ writes its message', () => {
  const found = readdirSync(API)
    .filter((file) => file.endsWith('.ts') && file !== 'errors.ts')
    .flatMap((file) => {
      const text = code(readFileSync(new URL(file, API), 'utf8'));
      return MESSAGE_AT_RAISE_SITE.filter((pattern) => pattern.test(text)).map(
        (pattern) => `${file}: ${pattern.source}`,
      );
    });
  expect(found).toEqual([]);
});

test('each code the HTTP layer raises has its message template, and the templates say what the API always said', () => {
  const withoutTemplate = ERROR_CODES.filter((reason) => (ERRORS[reason] as ErrorSpec).message === undefined);
  // Answered with the words of its origin only: the rate limiter's own message.
  expect(withoutTemplate).toEqual(['rate_limited']);
  expect(errorMessage('insufficient_scope', { scope: 'read', what: 'pausing a queue', needed: 'admin' })).toBe(
    "this token's scope is read; pausing a queue needs a token of scope admin or wider",
  );
  expect(
    errorMessage('invalid_field', { field: 'setting', oneOf: ['ALWAYS_QUARANTINE', 'NEVER_QUARANTINE', 'clear'] }),
  ).toBe('setting must be ALWAYS_QUARANTINE, NEVER_QUARANTINE or clear');
  expect(errorMessage('invalid_field', { missing: 'priority', oneOf: ['urgent', 'high', 'medium', 'low'] })).toBe(
    'missing the field "priority" (urgent, high, medium or low)',
  );
  expect(errorMessage('method_not_allowed', { method: 'GET', path: '/v1/x', allowed: 'POST' })).toBe(
    'GET is not allowed on /v1/x; use POST',
  );
  expect(errorMessage('method_not_allowed', { method: 'CONNECT' })).toBe('CONNECT is not allowed here');
  expect(errorMessage('unauthorized', { token: 'missing' })).toBe(
    'missing API token: send it in x-api-token or as Authorization: Bearer <token>',
  );
});
