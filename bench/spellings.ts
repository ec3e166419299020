/**
 * Ways to spell a request target for a route's path: the same path (percent-encoded, dot segments, double slashes,
 * absolute form, a trailing `/`, `?` or fragment), another path (another case, a `;` parameter, an encoded `/`), or
 * no path at all (a NUL or control escape, invalid UTF-8, a bad escape, an overlong path). The path tests try each
 * on every route; the path fuzzer (pathFuzz.ts) mixes them at random.
 */
export type SpellingKind = 'same' | 'other' | 'refused';

export interface Spelling {
  name: string;
  kind: SpellingKind;
  spell(path: string, port: number): string;
}

const hex = (char: string, upper: boolean) => {
  const code = char.charCodeAt(0).toString(16).padStart(2, '0');
  return `%${upper ? code.toUpperCase() : code}`;
};

/** Every character but `/` percent-encoded. */
export const encodeAll = (path: string, upper = false) => path.replace(/[^/]/g, (char) => hex(char, upper));

/** The first segment's characters percent-encoded (`/v1/x` is `/%76%31/x`). */
const encodeFirst = (path: string) =>
  path.replace(/^\/([^/]*)/, (_all, segment: string) => `/${encodeAll(segment, true)}`);

export const SPELLINGS: Spelling[] = [
  { name: 'as registered', kind: 'same', spell: (p) => p },
  { name: 'first segment percent-encoded', kind: 'same', spell: encodeFirst },
  { name: 'every character percent-encoded', kind: 'same', spell: (p) => encodeAll(p) },
  { name: 'a "." segment', kind: 'same', spell: (p) => `/.${p}` },
  { name: 'a ".." segment', kind: 'same', spell: (p) => `/x/..${p}` },
  { name: 'an encoded ".." segment', kind: 'same', spell: (p) => `/x/%2e%2E${p}` },
  { name: '".." above the root', kind: 'same', spell: (p) => `/../..${p}` },
  { name: 'double slashes', kind: 'same', spell: (p) => p.replaceAll('/', '//') },
  { name: 'a trailing slash', kind: 'same', spell: (p) => `${p}/` },
  { name: 'a trailing "?"', kind: 'same', spell: (p) => `${p}?` },
  { name: 'a fragment', kind: 'same', spell: (p) => `${p}#fragment` },
  { name: 'absolute form', kind: 'same', spell: (p, port) => `http://127.0.0.1:${port}${p}` },
  { name: 'absolute form, another host', kind: 'same', spell: (p) => `HTTP://elsewhere.example${p}` },
  { name: 'upper case', kind: 'other', spell: (p) => p.toUpperCase() },
  { name: 'a ";" parameter', kind: 'other', spell: (p) => `${p};jsessionid=1` },
  {
    name: 'an encoded "/"',
    kind: 'other',
    spell: (p) => (p.lastIndexOf('/') > 0 ? p.replace(/\/(?=[^/]*$)/, '%2F') : `${p}%2Fx`),
  },
  { name: 'a NUL escape', kind: 'refused', spell: (p) => `${p}%00` },
  { name: 'an encoded line feed', kind: 'refused', spell: (p) => `${p}%0A` },
  { name: 'an overlong UTF-8 "/"', kind: 'refused', spell: (p) => `${p}%C0%AF` },
  { name: 'a bad escape', kind: 'refused', spell: (p) => `${p}%zz` },
  { name: 'an overlong path', kind: 'refused', spell: (p) => `/${'a/'.repeat(1500)}..${p}` },
  { name: 'not a path', kind: 'refused', spell: (p) => `x${p}` },
];

/** A route's URL with each parameter (`:name`) given a value. */
export const concretePath = (url: string) => url.replace(/:[A-Za-z]+/g, 'p1');
