/**
 * The raw requests of the HTTP edge fuzzer (httpFuzz.ts): route paths spelled and mutated at random (escapes, dot
 * segments, slashes, case, absolute forms, suffixes) with any method and version, and the auth, content-type,
 * content-length, transfer-encoding, expect, host and cookie headers on canonical paths; and the oracle of whether
 * a request carries the valid token.
 */
import fc from 'fast-check';
import type { HttpFuzzServer } from './httpFuzz.js';
import { SPELLINGS } from './spellings.js';

export const HTTP_TOKEN = 'fuzz-http-token-0123456789abcdef';
const QUEUE_BODY = JSON.stringify({ repo: { host: 'github.com', owner: 'acme', name: 'a' }, targetBranch: 'main' });

/** A raw request: its request line, header lines and body, and whether it carries a valid token (the oracle). */
export interface FuzzRequest {
  line: string;
  headers: [string, string][];
  body: string;
}

/** Whether Greenline must take these headers as carrying the valid token: auth.ts's rule, written again here. */
export function carriesValidToken(headers: [string, string][]): boolean {
  const values = (name: string) => headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v.trim());
  // Node joins repeated unknown headers with ", " and keeps the first Authorization.
  const xApiToken = values('x-api-token');
  const token = xApiToken.length === 0 ? '' : xApiToken.join(', ');
  if (token !== '') return token === HTTP_TOKEN;
  const authorization = values('authorization')[0];
  const bearer = authorization === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
  return bearer?.[1] === HTTP_TOKEN;
}

const METHODS = ['GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'get', 'TRACE', 'CONNECT', 'PROPFIND'];
const SUFFIXES = [
  '',
  '',
  '',
  '',
  '',
  '',
  '?',
  '?a=1',
  '#x',
  ';p',
  '/',
  '//',
  '%2F',
  '%2f..',
  '%00',
  '%',
  '%zz',
  '%C0%AF',
  '%E2%82',
  '%2e',
  '/%2e%2e',
  '\t',
  '?%00',
  '%25',
  '%u002e',
];
const PREFIXES = [
  '',
  '',
  '',
  'http://127.0.0.1:1',
  'HTTP://elsewhere',
  'https://x.y:443',
  '//',
  '/./',
  '/../',
  'http://user@h',
];
const VERSIONS = [...Array(12).fill('HTTP/1.1'), 'HTTP/1.0', 'HTTP/1.0', 'HTTP/2.0', 'http/1.1', 'HTTP/1.1 x', ''];

/** One character-level change of a path: an escape (either case), a dot segment, a slash, a case flip. */
const mutation = fc.tuple(fc.nat(6), fc.nat(), fc.boolean()).map(([how, at, upper]) => (path: string) => {
  const i = path.length === 0 ? 0 : at % path.length;
  const char = path[i] ?? '';
  const hex = `%${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
  switch (how) {
    case 0:
      return char === '' ? path : path.slice(0, i) + (upper ? hex.toUpperCase() : hex) + path.slice(i + 1);
    case 1:
      return `${path.slice(0, i)}/./${path.slice(i)}`;
    case 2:
      return `${path.slice(0, i)}/x/../${path.slice(i)}`;
    case 3:
      return `${path.slice(0, i)}/${path.slice(i)}`;
    case 4:
      return path.slice(0, i) + (upper ? char.toUpperCase() : char.toLowerCase()) + path.slice(i + 1);
    case 5:
      return `${path.slice(0, i)}%2F${path.slice(i + 1)}`;
    default:
      return `${path.slice(0, i)}..${path.slice(i)}`;
  }
});

const authHeaders: fc.Arbitrary<[string, string][]> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<[string, string][]>([]) },
  { weight: 1, arbitrary: fc.constant([['x-api-token', HTTP_TOKEN]] as [string, string][]) },
  {
    weight: 3,
    arbitrary: fc
      .array(
        fc.tuple(
          fc.constantFrom('x-api-token', 'X-API-TOKEN', 'authorization', 'Authorization', 'x-api-token '),
          fc.constantFrom(
            HTTP_TOKEN,
            `Bearer ${HTTP_TOKEN}`,
            `bearer\t${HTTP_TOKEN}`,
            `Bearer  ${HTTP_TOKEN} `,
            `Basic ${HTTP_TOKEN}`,
            `Bearer ${HTTP_TOKEN.toUpperCase()}`,
            `${HTTP_TOKEN}x`,
            HTTP_TOKEN.slice(1),
            '',
            ' ',
            'Bearer',
            'Bearer ',
            `Bearer ${HTTP_TOKEN}, Bearer junk`,
            'junk',
            `%${HTTP_TOKEN}`,
          ),
        ),
        { maxLength: 3 },
      )
      .map((pairs) => pairs.map(([name, value]) => [name.trim(), value] as [string, string])),
  },
);

/** Paths: a route's path, spelled and mutated; any method and version; mostly no token. */
export function pathRequests(server: HttpFuzzServer): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      route: fc.constantFrom(...server.routes),
      spelling: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...SPELLINGS.filter(({ kind }) => kind === 'same')) },
        { weight: 1, arbitrary: fc.constantFrom(...SPELLINGS) },
      ),
      mutations: fc.array(mutation, { maxLength: 2 }),
      prefix: fc.constantFrom(...PREFIXES),
      suffix: fc.constantFrom(...SUFFIXES),
      method: fc.oneof(
        { weight: 4, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
      ),
      version: fc.constantFrom(...VERSIONS),
      auth: authHeaders,
    })
    .map(({ route, spelling, mutations, prefix, suffix, method, version, auth }) => {
      const target =
        prefix + mutations.reduce((path, mutate) => mutate(path), spelling.spell(route.path, server.port)) + suffix;
      const body = route.method === 'POST' ? QUEUE_BODY : '';
      const headers: [string, string][] = [['Host', '127.0.0.1'], ...auth];
      if (body !== '') headers.push(['Content-Type', 'application/json'], ['Content-Length', String(body.length)]);
      return { line: `${method ?? route.method} ${target} ${version}`.trimEnd(), headers, body };
    });
}

const contentTypes = [
  'application/json',
  'APPLICATION/JSON; charset=utf-8',
  'application/json;;',
  'text/plain',
  '',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'application/json, text/plain',
  'application/jsonx',
];

/** Headers: auth headers, content-type, -length, transfer-encoding, expect, host and cookie, on canonical paths. */
export function headerRequests(server: HttpFuzzServer): fc.Arbitrary<FuzzRequest> {
  const lengthOf = (body: string) =>
    fc.constantFrom<(string | null)[]>(
      [String(Buffer.byteLength(body))],
      [String(Buffer.byteLength(body))],
      [String(Buffer.byteLength(body) + 5)],
      [String(Math.max(0, Buffer.byteLength(body) - 1))],
      [String(Buffer.byteLength(body)), String(Buffer.byteLength(body) + 1)],
      ['-1'],
      ['abc'],
      [String(25 * 1024 * 1024)],
      ['1e3'],
      [null],
    );
  return fc
    .record({
      route: fc.constantFrom(...server.routes),
      auth: authHeaders,
      body: fc.constantFrom(QUEUE_BODY, '', '{', 'token=x', '{"repo":1}'),
    })
    .chain(({ route, auth, body }) =>
      fc
        .record({
          type: fc.option(fc.constantFrom(...contentTypes), { nil: undefined }),
          lengths: lengthOf(body),
          chunked: fc.constantFrom(
            undefined,
            undefined,
            undefined,
            'chunked',
            'gzip, chunked',
            'identity',
            'chunked, chunked',
          ),
          expect: fc.constantFrom(undefined, undefined, '100-continue', '100-CONTINUE', 'junk'),
          host: fc.constantFrom<(string | null)[]>(
            ['127.0.0.1'],
            ['127.0.0.1'],
            [],
            ['a', 'b'],
            ['x'.repeat(300)],
            ['evil.example:80'],
            [null],
          ),
          cookie: fc.constantFrom(
            undefined,
            'greenline_session=junk',
            'greenline_session=',
            `greenline_session=${'a'.repeat(4000)}`,
          ),
          extra: fc.constantFrom<[string, string][]>(
            [],
            [['x-forwarded-for', '10.0.0.1']],
            [['x-api-token-x', HTTP_TOKEN]],
            [
              ['connection', 'keep-alive, Upgrade'],
              ['upgrade', 'websocket'],
            ],
          ),
        })
        .map(({ type, lengths, chunked, expect, host, cookie, extra }) => {
          const headers: [string, string][] = [...auth, ...extra];
          for (const value of host) if (value !== null) headers.push(['Host', value]);
          if (type !== undefined) headers.push(['Content-Type', type]);
          if (chunked !== undefined) headers.push(['Transfer-Encoding', chunked]);
          else for (const value of lengths) if (value !== null) headers.push(['Content-Length', value]);
          if (expect !== undefined) headers.push(['Expect', expect]);
          if (cookie !== undefined) headers.push(['Cookie', cookie]);
          const sent =
            chunked?.endsWith('chunked') === true
              ? `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`
              : body;
          return { line: `${route.method} ${route.path} HTTP/1.1`, headers, body: sent };
        }),
    );
}
