import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  encodeKey,
  encodeKeyLatin1,
  MAX_KEY_BYTES,
  scanRange,
  scanRangeLatin1,
  type TextRange,
} from '../../engine/store/keyCodec.js';
import { compareKeys, hasPrefix } from './storeModel.js';
import { InvalidKeyError } from '../../engine/store/store.js';

const part = fc.oneof(
  fc.nat({ max: Number.MAX_SAFE_INTEGER }),
  fc.integer({ min: -5, max: 5 }),
  fc.double(),
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', '\0', 'a\0b', '\ud800', 'é', 'x'.repeat(MAX_KEY_BYTES)),
);

/** What encoding `key` gives: its latin1 string, or the error it raises. */
function outcome(encode: () => unknown): string {
  try {
    return `ok:${JSON.stringify(encode())}`;
  } catch (error) {
    return `error:${(error as Error).constructor.name}:${(error as Error).message}`;
  }
}

describe('encodeKeyLatin1', () => {
  it('is encodeKey as a latin1 string, and rejects exactly the keys encodeKey rejects, with the same error', () => {
    fc.assert(
      fc.property(fc.array(part, { maxLength: 4 }), (key) => {
        expect(outcome(() => encodeKeyLatin1(key))).toBe(outcome(() => encodeKey(key).toString('latin1')));
      }),
      { numRuns: 3000 },
    );
  });

  it('rejects what is not a key', () => {
    for (const key of [undefined, 'a', [], [null], [{}]]) expect(() => encodeKeyLatin1(key)).toThrow(InvalidKeyError);
  });
});

describe('scanRangeLatin1 and scanRange', () => {
  // Valid keys only: parts whose encodings end in 0xff bytes and non-ASCII strings test the ends of prefixes.
  const validPart = fc.oneof(
    fc.nat({ max: 300 }),
    fc.constantFrom(0xff, 2 ** 40 - 1),
    fc.string({ maxLength: 3 }).filter((text) => !text.includes('\0')),
    fc.constantFrom('\u00ff', '', 'é'),
  );
  const key = fc.array(validPart, { minLength: 1, maxLength: 3 });
  const inText = (enc: string, range: TextRange | null) =>
    range !== null &&
    (range.lower === undefined || enc >= range.lower) &&
    (range.upper === undefined || enc < range.upper);
  const inBytes = (enc: Buffer, range: ReturnType<typeof scanRange>) =>
    range !== null &&
    (range.lower === undefined || Buffer.compare(enc, range.lower) >= 0) &&
    (range.upper === undefined || Buffer.compare(enc, range.upper) < 0);

  it('hold exactly the keys that have the prefix and lie from start (inclusive) to end (exclusive), in key order', () => {
    fc.assert(
      fc.property(
        key,
        fc.option(fc.array(validPart, { maxLength: 2 }), { nil: undefined }),
        fc.option(key, { nil: undefined }),
        fc.option(key, { nil: undefined }),
        (k, prefix, start, end) => {
          const options = { ...(prefix && { prefix }), ...(start && { start }), ...(end && { end }) };
          const wanted =
            (prefix === undefined || hasPrefix(k, prefix)) &&
            (start === undefined || compareKeys(k, start) >= 0) &&
            (end === undefined || compareKeys(k, end) < 0);
          expect(inText(encodeKeyLatin1(k), scanRangeLatin1(options))).toBe(wanted);
          expect(inBytes(encodeKey(k), scanRange(options))).toBe(wanted);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('refuse a bad limit and a bad bound', () => {
    expect(() => scanRangeLatin1({ limit: -1 })).toThrow(RangeError);
    expect(() => scanRange({ limit: 1.5 })).toThrow(RangeError);
    expect(() => scanRangeLatin1({ start: [-1] })).toThrow(InvalidKeyError);
    expect(() => scanRange({ prefix: ['a\0'] })).toThrow(InvalidKeyError);
  });
});
