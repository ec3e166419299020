import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeKey, encodeKeyLatin1, MAX_KEY_BYTES, scanRange, scanRangeLatin1, textRange } from '../../engine/store/keyCodec.js';
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

describe('scanRangeLatin1', () => {
  const key = fc.array(fc.oneof(fc.nat({ max: 300 }), fc.constantFrom(0xff, 2 ** 40 - 1), fc.string({ maxLength: 3 }), fc.constantFrom('\u00ff', '\0', '')), {
    maxLength: 3,
  });
  it('is scanRange as latin1 strings, for any prefix, start, end and limit', () => {
    fc.assert(
      fc.property(
        fc.option(key, { nil: undefined }),
        fc.option(key, { nil: undefined }),
        fc.option(key, { nil: undefined }),
        fc.option(fc.integer({ min: -1, max: 3 }), { nil: undefined }),
        (prefix, start, end, limit) => {
          const options = { ...(prefix && { prefix }), ...(start && { start }), ...(end && { end }), ...(limit !== undefined && { limit }) };
          expect(outcome(() => scanRangeLatin1(options))).toBe(
            outcome(() => {
              const range = scanRange(options);
              return range && textRange(range);
            }),
          );
        },
      ),
      { numRuns: 3000 },
    );
  });
});
