/**
 * The catalogue's conditions of the HTTP layer and of the device authorization grant (engine/model/errors.ts spreads
 * them into ERRORS): each with its status, its category, when it is answered, and its message template. The API's
 * raise sites (api/) pass values only; words that come from elsewhere (Fastify, tRPC, a host) are passed on as
 * `{ problem }`.
 */
import type { EngineErrorKind, Template } from './errors.js';

const http = (status: number, category: string, when: string) => ({ status, category, when }) as const;
const says = <M extends Template>(status: number, category: string, when: string, message: M) =>
  ({ status, category, when, message }) as const;
/** `a, b or c`. */
const either = (list: readonly string[]): string =>
  list.length < 2 ? list.join('') : `${list.slice(0, -1).join(', ')} or ${list.at(-1)}`;
/** What a condition says when its words come from elsewhere (Fastify, tRPC, a host): passed on. */
type Foreign = { problem: string };

export const HTTP_ERRORS = {
  // The device authorization grant (RFC 8628; its `error` is in the body too).
  authorization_pending: says(
    400,
    'bad_request',
    'device-auth/tokens before a person approved the user code (poll again after `interval`)',
    () => 'the user code has not been approved yet; poll again after the interval',
  ),
  slow_down: says(
    400,
    'bad_request',
    'device-auth/tokens polled faster than `interval` (which grows by 5 seconds)',
    () => 'polling too fast; wait 5 seconds more between polls from now on',
  ),
  access_denied: says(
    400,
    'bad_request',
    'device-auth/tokens for a user code a person denied',
    () => 'the sign-in was denied',
  ),
  expired_token: says(
    400,
    'bad_request',
    'device-auth/tokens for a device code older than its `expires_in`',
    () => 'the device code expired; start again with device-auth/initiate',
  ),
  invalid_grant: says(
    400,
    'bad_request',
    'device-auth/tokens with a device code that is unknown or spent',
    () => 'unknown or spent device code',
  ),
  unsupported_grant_type: says(
    400,
    'bad_request',
    'device-auth/tokens with a grant_type other than the device code',
    ({ grant }: { grant: string }) => `grant_type must be ${grant}`,
  ),
  not_implemented: says(
    501,
    'not_implemented',
    'a path of the hosted service whose request shape is not published (flaky-ci/create-ci-run)',
    ({ path, instead }: { path: string; instead: string }) =>
      `${path} is a path of the hosted service whose request is not published; ${instead}`,
  ),
  // The HTTP layer.
  invalid_field: {
    ...says(
      400,
      'bad_request',
      'a field (or the body) fails its schema, or a dashboard form or query holds a bad value; `details` names each field of a body',
      (
        bad:
          | Foreign
          | { fields: readonly string[] }
          | { field: string; oneOf: readonly string[] }
          | { missing: string; oneOf: readonly string[] }
          | { unconfirmed: string }
          | { notPrNumber: string }
          | { notPage: string },
      ) => {
        if ('problem' in bad) return bad.problem;
        if ('fields' in bad) return `invalid request: ${bad.fields.join(', ')}`;
        if ('field' in bad) return `${bad.field} must be ${either(bad.oneOf)}`;
        if ('missing' in bad) return `missing the field "${bad.missing}" (${either(bad.oneOf)})`;
        if ('unconfirmed' in bad) return `tick "sure" to ${bad.unconfirmed}`;
        if ('notPrNumber' in bad) return `"${bad.notPrNumber}" is not a pull request number (1 to 2147483647)`;
        return `after: "${bad.notPage}" is not a page of this history (follow the page's Older link)`;
      },
    ),
    kind: 'invalid' as EngineErrorKind as 'invalid',
  },
  invalid_json: says(
    400,
    'bad_request',
    'a body that is not valid JSON, or an empty one',
    ({ empty }: { empty: boolean }) =>
      empty ? 'the request body is empty; send a JSON object' : 'the request body is not valid JSON',
  ),
  bad_request: says(
    400,
    'bad_request',
    'any other request the HTTP layer refuses',
    (bad: Foreign | { noHost: true } | { malformed: string } | { target: string }) => {
      if ('problem' in bad) return bad.problem;
      if ('noHost' in bad) return 'an HTTP/1.1 request needs a Host header';
      return 'malformed' in bad ? `malformed HTTP request (${bad.malformed})` : `invalid request target: ${bad.target}`;
    },
  ),
  unauthorized: says(
    401,
    'unauthorized',
    'a missing, malformed or unknown token (`x-api-token`, or `Authorization: Bearer`)',
    (why: Foreign | { token: 'missing' | 'invalid' | 'signedOut' }) => {
      if ('problem' in why) return why.problem;
      if (why.token === 'missing')
        return 'missing API token: send it in x-api-token or as Authorization: Bearer <token>';
      return why.token === 'invalid' ? 'invalid API token' : 'sign in first';
    },
  ),
  insufficient_scope: says(
    403,
    'insufficient_scope',
    'a call beyond the token’s scope',
    ({ scope, what, needed }: { scope: string; what: string; needed: string }) =>
      `this token's scope is ${scope}; ${what} needs a token of scope ${needed} or wider`,
  ),
  cross_origin: says(
    403,
    'bad_request',
    'a dashboard form posted from another origin',
    (why: { action: string } | { post: 'crossOrigin' | 'withoutCsrf' }) => {
      if ('action' in why) return `${why.action} from another site refused`;
      return why.post === 'crossOrigin'
        ? 'cross-origin post'
        : 'this form was not sent from a page of this session (missing or wrong CSRF token): reload the page and try again';
    },
  ),
  endpoint_not_found: says(
    404,
    'not_found',
    'no endpoint at that path',
    (where: Foreign | { method: string; path: string }) =>
      'problem' in where ? where.problem : `no endpoint ${where.method} ${where.path}`,
  ),
  log_not_found: says(
    404,
    'not_found',
    'no CI log of that status in that run for this organization',
    ({ status, runId }: { status: string; runId: string }) => `no log of status ${status} in run ${runId}`,
  ),
  method_not_allowed: says(
    405,
    'method_not_allowed',
    'a known path with the wrong method (with an `Allow` header)',
    (wrong: Foreign | { method: string; path?: string; allowed?: string }) => {
      if ('problem' in wrong) return wrong.problem;
      return wrong.path === undefined
        ? `${wrong.method} is not allowed here`
        : `${wrong.method} is not allowed on ${wrong.path}; use ${wrong.allowed ?? ''}`;
    },
  ),
  request_timeout: says(
    408,
    'request_timeout',
    'a request not received whole within `GREENLINE_REQUEST_TIMEOUT`',
    () => 'the request was not received whole in time',
  ),
  payload_too_large: says(
    413,
    'payload_too_large',
    'a body over 20 MiB (declared so with `Expect: 100-continue`: before any `100`)',
    (big: Foreign | { limit: string }) =>
      'problem' in big ? big.problem : `the request body is larger than ${big.limit}`,
  ),
  unsupported_media_type: says(
    415,
    'unsupported_media_type',
    'a body that is not `application/json`',
    (what?: Foreign) =>
      what === undefined ? 'request bodies must be JSON (Content-Type: application/json)' : what.problem,
  ),
  expectation_failed: says(
    417,
    'expectation_failed',
    'an `Expect` header other than `100-continue`',
    ({ expect }: { expect: string }) => `Expect: ${expect} is not supported; only 100-continue is`,
  ),
  rate_limited: http(
    429,
    'rate_limited',
    'over the rate limit of the token (of the address, without a valid token), with `retry-after`',
  ),
  headers_too_large: says(
    431,
    'headers_too_large',
    'a request line and headers over 16 KiB',
    () => 'the request line and headers are larger than 16 KiB',
  ),
  internal_error: says(500, 'internal_error', 'a bug: logged, and nothing said of it', () => 'internal error'),
  unavailable: says(
    503,
    'unavailable',
    'the service is shutting down; `/readyz` while the store or the engine is not running',
    (why: Foreign | { state: 'shuttingDown' | 'notReady' }) =>
      'problem' in why ? why.problem : why.state === 'shuttingDown' ? 'the service is shutting down' : 'not ready',
  ),
  store_unavailable: says(
    503,
    'unavailable',
    'the store’s database (PostgreSQL) is unreachable, restarting, or did not answer in time, with `retry-after`: the request was not acknowledged; send it again then',
    ({ problem, retryAfterSeconds }: { problem: string; retryAfterSeconds: number }) =>
      `${problem}; try again in ${retryAfterSeconds} s`,
  ),
  dependency_unavailable: says(
    503,
    'unavailable',
    'the git host or CI that the request needs is unreachable or did not answer in time, with `retry-after`',
    ({ problem, retryAfterSeconds }: { problem: string; retryAfterSeconds: number }) =>
      `${problem}; try again in ${retryAfterSeconds} s`,
  ),
  device_authorizations_full: says(
    503,
    'unavailable',
    'device-auth/initiate while a thousand sign-ins wait already, with `retry-after`',
    () => 'too many sign-ins are waiting; try again in a minute',
  ),
  storage_full: says(
    507,
    'storage_full',
    'the disk or the store is full (`GREENLINE_MAX_DB_SIZE`): nothing of the request was stored; reads still work',
    () => 'the service is out of storage: nothing of this request was stored; reads still work',
  ),
} as const;
