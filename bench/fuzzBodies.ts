/**
 * The request bodies of the API fuzzer (fuzzCore.ts): fast-check arbitraries drawn from a request's JSON Schema
 * (the subset the OpenAPI document uses), then spoiled (a field with a wrong type, a huge number or string, unicode,
 * a lone surrogate, prototype-pollution keys, deep nesting), and raw bodies that are not JSON at all.
 */
import fc from 'fast-check';

export type Schema = Record<string, any>;

/** Values that break assumptions, for any field. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    0,
    -1,
    1e308,
    -1e308,
    2 ** 53,
    4_294_967_296,
    1.5,
    '',
    ' ',
    '\u0000',
    '\ud800',
    'a\udfffb',
    '../../etc/passwd',
    '%00',
    '💥'.repeat(1000),
  ),
  fc.constantFrom(
    { __proto__: { polluted: 1 } },
    JSON.parse('{"__proto__":{"polluted":1}}'),
    { constructor: { prototype: { polluted: 1 } } },
    [],
    {},
  ),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.string({ minLength: 10_000, maxLength: 10_000 }).map((s) => s.repeat(100)),
  fc.jsonValue({ maxDepth: 3 }),
);

const KNOWN_STRINGS = ['github.com', 'acme', 'a', 'b', 'main', 'fuzz', 'abcdef1'];
const KNOWN: Record<string, unknown> = {
  host: 'github.com',
  owner: 'acme',
  name: 'a',
  targetBranch: 'main',
  branch: 'main',
  org_url_slug: 'fuzz',
  number: 1,
  commit_sha: 'abcdef1',
};

function stringFor(schema: Schema): fc.Arbitrary<string> {
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= (schema.maxLength ?? 1000));
    } catch {
      return fc.string();
    }
  }
  return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 200) });
}

/** An arbitrary for a JSON Schema (the subset the OpenAPI document uses); `depth` bounds recursion. */
export function fromSchema(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 6) return fc.constant(null);
  const next = (s: Schema) => fromSchema(s, depth + 1);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return fc.oneof(...union.map(next));
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type: string) => next({ ...schema, type })));
  switch (schema.type) {
    case 'string':
      // Often a value the server knows (its queues' repository and branch), so that bodies get past the lookups.
      return fc.oneof(
        { weight: 1, arbitrary: fc.constantFrom(...KNOWN_STRINGS) },
        { weight: 1, arbitrary: stringFor(schema) },
      );
    case 'integer':
      return fc.oneof(
        fc.constantFrom(1, 2),
        fc.integer({
          min: Math.max(schema.minimum ?? -1000, Number.MIN_SAFE_INTEGER),
          max: Math.min(schema.maximum ?? 100_000, Number.MAX_SAFE_INTEGER),
        }),
      );
    case 'number':
      return fc.double({
        noNaN: true,
        noDefaultInfinity: true,
        ...(schema.minimum === undefined ? {} : { min: schema.minimum }),
        ...(schema.maximum === undefined ? {} : { max: schema.maximum }),
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schema.items === undefined ? fc.jsonValue({ maxDepth: 1 }) : next(schema.items), {
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case 'object': {
      const properties: Record<string, Schema> = schema.properties ?? {};
      // A field the server looks things up by is mostly given a value it knows, so that bodies get past the lookups.
      const field = (name: string, s: Schema) =>
        KNOWN[name] === undefined
          ? next(s)
          : fc.oneof({ weight: 4, arbitrary: fc.constant(KNOWN[name]) }, { weight: 1, arbitrary: next(s) });
      const record = fc.record(
        Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, field(name, s)])),
        { requiredKeys: schema.required ?? [] },
      );
      return record;
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A body from the schema, then maybe spoiled: a field replaced, removed, or pollution keys added. */
export function bodyFor(schema: Schema): fc.Arbitrary<unknown> {
  return fc.tuple(fromSchema(schema), fc.nat(9), hostileValue, fc.nat()).map(([body, how, value, pick]) => {
    if (how < 4 || typeof body !== 'object' || body === null || Array.isArray(body)) return how === 9 ? value : body;
    const copy = { ...(body as Record<string, unknown>) };
    const keys = Object.keys(copy);
    const key = keys[pick % Math.max(1, keys.length)] ?? 'extra';
    if (how < 7) copy[key] = value;
    else if (how === 7) delete copy[key];
    else Object.defineProperty(copy, '__proto__', { value: { polluted: true }, enumerable: true });
    return copy;
  });
}

/** Raw bodies no generator of valid JSON makes. */
export const rawBody: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.constantFrom(
    '',
    '{',
    '{"repo":',
    'null',
    '[]',
    '"text"',
    '{"a":1,}',
    "{'a':1}",
    'NaN',
    '{"repo":{"host":"github.com"}}x',
  ),
  fc.constant('['.repeat(100_000) + ']'.repeat(100_000)),
  fc.constant(`${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`),
  fc.constant('{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"polluted":true}}}'),
  fc.constant(Buffer.from([0x7b, 0x22, 0x72, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.jsonValue().map((value) => JSON.stringify(value).slice(0, -1)),
);
