/** A fast-check property: random transactions (some of which throw) and random scans, store against model. */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { Key, KeyPart, ReadTx, ScanOptions, Store } from '../../engine/store/index.js';
import { ModelCollection } from './storeModel.js';

type MakeStore = () => Promise<{ store: Store; cleanup: () => Promise<void> }>;

/** Parts chosen to collide and to be prefixes of each other, plus UTF-16 vs UTF-8 order traps and random ones. */
const partArb: fc.Arbitrary<KeyPart> = fc.oneof(
  fc.constantFrom<KeyPart>(0, 1, 2, 255, 256, 2 ** 32, 2 ** 53 - 1, '', 'a', 'ab', 'a\u0001', 'b', '\u00e9'),
  fc.constantFrom<KeyPart>('\uE000', '\uFFFF', '\u{1F600}', '\u{10FFFF}'),
  fc.nat({ max: 1000 }),
  fc.string({ unit: 'binary', maxLength: 3 }).filter((s) => !s.includes('\0') && !/\p{Surrogate}/u.test(s)),
);
const keyArb: fc.Arbitrary<Key> = fc.array(partArb, { minLength: 1, maxLength: 3 });
const valueArb = fc.oneof(fc.integer(), fc.string({ maxLength: 5 }), fc.constant(null), fc.array(fc.boolean()));

type Op = { kind: 'put'; key: Key; value: unknown } | { kind: 'remove'; key: Key };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), key: keyArb, value: valueArb }),
  fc.record({ kind: fc.constant('remove' as const), key: keyArb }),
);
const txArb = fc.record({ ops: fc.array(opArb, { minLength: 1, maxLength: 12 }), fail: fc.boolean() });

const scanArb: fc.Arbitrary<ScanOptions> = fc.record(
  {
    prefix: fc.array(partArb, { minLength: 1, maxLength: 2 }),
    start: keyArb,
    end: keyArb,
    reverse: fc.boolean(),
    limit: fc.nat({ max: 6 }),
  },
  { requiredKeys: [] },
);

function expectSame(tx: ReadTx, model: ModelCollection, options: ScanOptions): void {
  const label = JSON.stringify(options);
  expect([...tx.scan('meta', options)], label).toEqual(model.scan(options));
  expect(tx.count('meta', options), label).toBe(model.scan(options).length);
}

export async function checkScansAgainstModel(makeStore: MakeStore): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.array(txArb, { minLength: 1, maxLength: 6 }),
      fc.array(scanArb, { maxLength: 8 }),
      async (txs, scans) => {
        const { store, cleanup } = await makeStore();
        try {
          let model = new ModelCollection();
          for (const { ops, fail } of txs) {
            const working = model.clone();
            const run = (): void =>
              store.write((tx) => {
                for (const op of ops) {
                  if (op.kind === 'put') {
                    tx.put('meta', op.key, op.value);
                    working.put(op.key, op.value);
                  } else {
                    expect(tx.remove('meta', op.key)).toBe(working.remove(op.key));
                  }
                }
                expectSame(tx, working, {});
                if (fail) throw new Error('rolled back');
              });
            if (fail) expect(run).toThrow('rolled back');
            else run(), (model = working);
            store.read((tx) => expectSame(tx, model, {}));
          }
          store.read((tx) => {
            for (const options of scans) expectSame(tx, model, options);
          });
        } finally {
          await cleanup();
        }
      },
    ),
    { numRuns: 30 },
  );
}
