/**
 * One canonical spelling of every request target, made once before routing (Fastify's `rewriteUrl`): the router
 * matches it and the matched route's own config decides who may call it (server.ts), so no second reading of the
 * raw URL can disagree with the router. RFC 3986 normalisation: an absolute-form target loses its scheme and host,
 * a fragment is dropped, percent-encoded unreserved characters are decoded (`%76%31` is `v1`), dot segments are
 * removed, runs of slashes are one, and a trailing slash goes. What stays encoded (`%2F`, `%3F`, …) means another
 * path, as does another case (`/V1/…`) or a `;` parameter: no route has it, so it is a 404.
 * A target that cannot be a path is refused (400) before any route sees it: a bad or NUL/control escape, invalid
 * UTF-8 (overlong forms included), control characters, or a path longer than MAX_PATH_LENGTH.
 */
import type { IncomingMessage } from 'node:http';

export const MAX_PATH_LENGTH = 2048;

/** Where a refused target is routed: no route has this path, and the request hook answers 400 before anything. */
export const REFUSED_TARGET = '/(refused)';

const REFUSAL = Symbol('greenline.refusedTarget');

type Refusable = IncomingMessage & { [REFUSAL]?: string };

const ABSOLUTE_FORM = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/;
const UNRESERVED = /[A-Za-z0-9\-._~]/;

export type Canonical = { url: string } | { refused: string };

function decodeUnreserved(path: string): string | { refused: string } {
  let out = '';
  for (let i = 0; i < path.length; i++) {
    const char = path[i]!;
    if (char !== '%') {
      out += char;
      continue;
    }
    const hex = path.slice(i + 1, i + 3);
    if (!/^[0-9a-fA-F]{2}$/.test(hex)) return { refused: `"${path.slice(i, i + 3)}" is not a percent-encoded byte` };
    const code = Number.parseInt(hex, 16);
    if (code < 0x20 || code === 0x7f) return { refused: 'the path holds an encoded control character' };
    const decoded = String.fromCharCode(code);
    out += UNRESERVED.test(decoded) ? decoded : `%${hex.toUpperCase()}`;
    i += 2;
  }
  return out;
}

/** RFC 3986 §5.2.4 on segments: `.` goes, `..` takes the one before it (never above the root); empty ones go. */
function resolveSegments(path: string): string {
  const kept: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') kept.pop();
    else kept.push(segment);
  }
  return `/${kept.join('/')}`;
}

/** The canonical target for a raw request target, or why it cannot be one. */
export function canonicalTarget(raw: string): Canonical {
  let target = raw;
  const absolute = ABSOLUTE_FORM.exec(target);
  if (absolute !== null) target = target.slice(absolute[0].length) || '/';
  const hash = target.indexOf('#');
  if (hash !== -1) target = target.slice(0, hash);
  const question = target.indexOf('?');
  const rawPath = question === -1 ? target : target.slice(0, question);
  const query = question === -1 ? '' : target.slice(question);
  if (!rawPath.startsWith('/')) return { refused: 'the request target must be a path starting with "/"' };
  if (rawPath.length > MAX_PATH_LENGTH) return { refused: `the path is longer than ${MAX_PATH_LENGTH} characters` };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u0020\u007f-\uffff]/.test(rawPath))
    return { refused: 'the path holds a character that must be percent-encoded' };
  const decoded = decodeUnreserved(rawPath);
  if (typeof decoded !== 'string') return decoded;
  try {
    // Every escape left must spell UTF-8 (an overlong `%C0%AF` does not): the router decodes them for parameters.
    decodeURIComponent(decoded);
  } catch {
    return { refused: 'the path is not percent-encoded UTF-8' };
  }
  // A `?` alone means no query: the same resource.
  return { url: resolveSegments(decoded) + (query === '?' ? '' : query) };
}

/** Fastify's `rewriteUrl`: the canonical target; a refused one is remembered on the request and routed nowhere. */
export function rewriteUrl(request: IncomingMessage): string {
  const canonical = canonicalTarget(request.url ?? '/');
  if ('url' in canonical) return canonical.url;
  (request as Refusable)[REFUSAL] = canonical.refused;
  return REFUSED_TARGET;
}

/** Why this request's target was refused, when it was. */
export function refusedTarget(request: IncomingMessage): string | undefined {
  return (request as Refusable)[REFUSAL];
}
