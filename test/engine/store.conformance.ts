/** The contract of engine/store/store.ts, run against every Store implementation. */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { InvalidKeyError, StoreClosedError } from '../../engine/store/index.js';
import type { Key, KeyPart, ReadTx, ScanOptions, Store } from '../../engine/store/index.js';
import { compareKeys } from './storeModel.js';
import { checkScansAgainstModel } from './store.property.js';

type MakeStore = () => Promise<{ store: Store; cleanup: () => Promise<void> }>;

const keysOf = (tx: ReadTx, options?: ScanOptions): KeyPart[][] => [...tx.scan('meta', options)].map((e) => e.key);
const bad = (key: unknown): Key => key as Key;

/** Keys in their documented order: numbers numerically, then strings by UTF-8 bytes, shorter first. */
const ORDERED: Key[] = [
  [0],
  [0, 0],
  [0, 'a'],
  [2],
  [10],
  [255],
  [256],
  [2 ** 32],
  [2 ** 53 - 1],
  [''],
  ['', 0],
  ['\u0001'],
  ['a'],
  ['a', 0],
  ['a', 1],
  ['a', 1, 'x'],
  ['a', 10],
  ['a', ''],
  ['a', 'b'],
  ['a\u0001'],
  ['ab'],
  ['b'],
  ['\u00e9'],
  ['\uE000'],
  ['\uFFFF'],
  ['\u{1F600}'],
  ['\u{1F600}', 1],
];

export function describeStoreConformance(name: string, makeStore: MakeStore): void {
  describe(`Store conformance: ${name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    beforeEach(async () => ({ store, cleanup } = await makeStore()));
    afterEach(async () => cleanup());

    const fill = (keys: readonly Key[]): void =>
      store.write((tx) => {
        keys.forEach((key, i) => {
          tx.put('meta', key, { i });
        });
      });

    test('get, put, overwrite, remove; collections are separate', () => {
      expect(store.read((tx) => tx.get('meta', ['x']))).toBeUndefined();
      expect(store.write((tx) => (tx.put('meta', ['x'], { n: 1 }), 'result'))).toBe('result');
      expect(store.read((tx) => tx.get('meta', ['x']))).toEqual({ n: 1 });
      expect(store.read((tx) => tx.get('queueIndex', ['x']))).toBeUndefined();
      store.write((tx) => tx.put('meta', ['x'], [1, 'two', null, true, { deep: [1.5] }]));
      expect(store.read((tx) => tx.get('meta', ['x']))).toEqual([1, 'two', null, true, { deep: [1.5] }]);
      for (const value of [null, false, 0, -1.25, '', 'snow ☃ \u{1F600}', []]) {
        store.write((tx) => tx.put('meta', ['v'], value));
        expect(store.read((tx) => tx.get('meta', ['v']))).toEqual(value);
      }
      expect(store.write((tx) => tx.remove('meta', ['x']))).toBe(true);
      expect(store.write((tx) => tx.remove('meta', ['x']))).toBe(false);
      expect(store.read((tx) => tx.get('meta', ['x']))).toBeUndefined();
    });

    test('values are copies both ways', () => {
      const value = { list: [1, 2], nested: { a: 'b' } };
      store.write((tx) => tx.put('meta', ['k'], value));
      value.list.push(3);
      const read = store.read((tx) => tx.get('meta', ['k'])) as typeof value;
      expect(read).toEqual({ list: [1, 2], nested: { a: 'b' } });
      read.nested.a = 'changed';
      const scanned = store.read((tx) => [...tx.scan('meta')])[0]?.value as typeof value;
      scanned.list.length = 0;
      expect(store.read((tx) => tx.get('meta', ['k']))).toEqual({ list: [1, 2], nested: { a: 'b' } });
      store.write((tx) => {
        (tx.get('meta', ['k']) as typeof value).list.push(9);
        expect(tx.get('meta', ['k'])).toEqual({ list: [1, 2], nested: { a: 'b' } });
      });
      // Nested values follow JSON: an undefined property is dropped.
      store.write((tx) => tx.put('meta', ['u'], { a: 1, gone: undefined }));
      expect(store.read((tx) => tx.get('meta', ['u']))).toStrictEqual({ a: 1 });
    });

    test('scan walks keys in the documented order, keys read back as arrays', () => {
      expect([...ORDERED].sort(compareKeys)).toEqual(ORDERED); // the fixture agrees with the model
      fill([...ORDERED].reverse());
      expect(store.read((tx) => keysOf(tx))).toEqual(ORDERED);
      expect(store.read((tx) => keysOf(tx, { reverse: true }))).toEqual([...ORDERED].reverse());
      const entries = store.read((tx) => [...tx.scan('meta', { limit: 1 })]);
      expect(entries).toEqual([{ key: [0], value: { i: ORDERED.length - 1 } }]);
    });

    test('prefix scans include the prefix key itself and its extensions only', () => {
      fill(ORDERED);
      expect(store.read((tx) => keysOf(tx, { prefix: ['a'] }))).toEqual([
        ['a'],
        ['a', 0],
        ['a', 1],
        ['a', 1, 'x'],
        ['a', 10],
        ['a', ''],
        ['a', 'b'],
      ]);
      expect(store.read((tx) => keysOf(tx, { prefix: ['a', 1] }))).toEqual([
        ['a', 1],
        ['a', 1, 'x'],
      ]);
      expect(store.read((tx) => keysOf(tx, { prefix: [0] }))).toEqual([[0], [0, 0], [0, 'a']]);
      expect(store.read((tx) => keysOf(tx, { prefix: [''] }))).toEqual([[''], ['', 0]]);
      expect(store.read((tx) => keysOf(tx, { prefix: ['\u{1F600}'] }))).toEqual([['\u{1F600}'], ['\u{1F600}', 1]]);
      expect(store.read((tx) => keysOf(tx, { prefix: ['a', 'b', 'c'] }))).toEqual([]);
      expect(store.read((tx) => keysOf(tx, { prefix: ['a'], reverse: true, limit: 2 }))).toEqual([
        ['a', 'b'],
        ['a', ''],
      ]);
      expect(store.read((tx) => keysOf(tx, { prefix: [] }))).toEqual(ORDERED);
    });

    test('start is inclusive, end exclusive, in both directions, within a prefix', () => {
      fill(ORDERED);
      const at = (i: number): Key => ORDERED[i] as Key;
      expect(store.read((tx) => keysOf(tx, { start: at(3), end: at(6) }))).toEqual(ORDERED.slice(3, 6));
      expect(store.read((tx) => keysOf(tx, { start: at(3), end: at(6), reverse: true }))).toEqual(
        ORDERED.slice(3, 6).reverse(),
      );
      expect(store.read((tx) => keysOf(tx, { start: ['a', 1, 'w'] }))[0]).toEqual(['a', 1, 'x']);
      expect(store.read((tx) => keysOf(tx, { end: [1] }))).toEqual([[0], [0, 0], [0, 'a']]);
      expect(store.read((tx) => keysOf(tx, { end: [1], reverse: true, limit: 1 }))).toEqual([[0, 'a']]);
      expect(store.read((tx) => keysOf(tx, { start: ['b'], reverse: true }))).toEqual(ORDERED.slice(21).reverse());
      expect(store.read((tx) => keysOf(tx, { start: at(6), end: at(6) }))).toEqual([]);
      expect(store.read((tx) => keysOf(tx, { start: at(7), end: at(6) }))).toEqual([]);
      expect(store.read((tx) => keysOf(tx, { prefix: ['a'], start: ['a', 1], end: ['a', ''] }))).toEqual([
        ['a', 1],
        ['a', 1, 'x'],
        ['a', 10],
      ]);
      expect(store.read((tx) => keysOf(tx, { prefix: ['a'], start: [0], end: ['z'] }))).toHaveLength(7);
      expect(store.read((tx) => keysOf(tx, { prefix: ['a'], start: ['b'] }))).toEqual([]);
      expect(store.read((tx) => keysOf(tx, { limit: 0 }))).toEqual([]);
      expect(() => store.read((tx) => keysOf(tx, { limit: -1 }))).toThrow(RangeError);
    });

    test('count agrees with scan and does not exceed limit', () => {
      expect(store.read((tx) => tx.count('meta'))).toBe(0);
      fill(ORDERED);
      store.write((tx) => tx.put('queueIndex', ['org', 'q'], 'q1'));
      const cases: ScanOptions[] = [{}, { prefix: ['a'] }, { start: [10], end: ['b'] }, { prefix: ['a'], limit: 3 }];
      for (const options of cases) {
        expect(store.read((tx) => tx.count('meta', options))).toBe(store.read((tx) => keysOf(tx, options).length));
      }
      expect(store.read((tx) => tx.count('meta', { prefix: ['a'], limit: 3 }))).toBe(3);
      expect(store.read((tx) => tx.count('queueIndex'))).toBe(1);
    });

    test('a write transaction reads its own writes (get, scan, count)', () => {
      fill([['a'], ['b'], ['c']]);
      store.write((tx) => {
        tx.put('meta', ['b', 1], 'new');
        expect(tx.remove('meta', ['a'])).toBe(true);
        tx.put('meta', ['c'], 'changed');
        expect(tx.get('meta', ['b', 1])).toBe('new');
        expect(tx.get('meta', ['a'])).toBeUndefined();
        expect(tx.get('meta', ['c'])).toBe('changed');
        expect(keysOf(tx)).toEqual([['b'], ['b', 1], ['c']]);
        expect([...tx.scan('meta', { reverse: true })].map((e) => e.value)).toEqual(['changed', 'new', { i: 1 }]);
        expect(tx.count('meta', { prefix: ['b'] })).toBe(2);
        expect(tx.remove('meta', ['b', 1])).toBe(true);
        expect(tx.remove('meta', ['b', 1])).toBe(false);
        tx.put('meta', ['a'], 'back');
        expect(tx.count('meta')).toBe(3);
      });
      expect(store.read((tx) => [...tx.scan('meta')])).toEqual([
        { key: ['a'], value: 'back' },
        { key: ['b'], value: { i: 1 } },
        { key: ['c'], value: 'changed' },
      ]);
    });

    test('when fn throws, nothing of it is written and the error propagates', () => {
      fill([['a'], ['b'], ['c']]);
      const before = store.read((tx) => [...tx.scan('meta')]);
      const boom = new Error('boom');
      expect(() =>
        store.write((tx) => {
          tx.put('meta', ['d'], 1);
          tx.put('meta', ['a'], 'overwritten');
          tx.remove('meta', ['b']);
          tx.remove('meta', ['c']);
          tx.put('queueIndex', ['q'], 'id');
          throw boom;
        }),
      ).toThrow(boom);
      expect(() => store.write((tx) => (tx.put('meta', ['e'], 1), tx.put('meta', bad([]), 1)))).toThrow(
        InvalidKeyError,
      );
      expect(store.read((tx) => [...tx.scan('meta')])).toEqual(before);
      expect(store.read((tx) => tx.get('queueIndex', ['q']))).toBeUndefined();
      expect(store.stats().entries).toMatchObject({ meta: 3, queueIndex: 0 });
    });

    test('invalid keys, values and collections throw InvalidKeyError', () => {
      const badKeys = [
        [],
        'a',
        ['a\0b'],
        [-1],
        [1.5],
        [2 ** 53],
        [NaN],
        [Infinity],
        [true],
        [null],
        [{}],
        [['a']],
        ['\uD800'],
        ['x'.repeat(4000)],
      ];
      for (const key of badKeys) {
        expect(() => store.read((tx) => tx.get('meta', bad(key))), JSON.stringify(key)).toThrow(InvalidKeyError);
        expect(() => store.write((tx) => tx.put('meta', bad(key), 1))).toThrow(InvalidKeyError);
        expect(() => store.write((tx) => tx.remove('meta', bad(key)))).toThrow(InvalidKeyError);
        expect(() => store.read((tx) => [...tx.scan('meta', { start: bad(key) })])).toThrow(InvalidKeyError);
        if (key.length !== 0) {
          expect(() => store.read((tx) => tx.count('meta', { prefix: bad(key) }))).toThrow(InvalidKeyError);
        }
      }
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      for (const value of [undefined, () => 1, NaN, Infinity, -Infinity, Symbol('s'), 10n, cyclic, { n: 1n }]) {
        expect(() => store.write((tx) => tx.put('meta', ['v'], value)), String(value)).toThrow(InvalidKeyError);
      }
      expect(() => store.read((tx) => tx.get(bad('nope') as unknown as 'meta', ['a']))).toThrow(InvalidKeyError);
      expect(store.stats().entries.meta).toBe(0);
    });

    test('read and write may not be nested in a write, nor a transaction used after it ended', () => {
      expect(() => store.write(() => store.read(() => 1))).toThrow();
      expect(() => store.write(() => store.write(() => 1))).toThrow();
      store.write((tx) => tx.put('meta', ['a'], 1));
      expect(store.read((outer) => [store.read((inner) => inner.count('meta')), outer.get('meta', ['a'])])).toEqual([
        1, 1,
      ]);
      const leaked = store.read((tx) => tx);
      expect(() => leaked.get('meta', ['a'])).toThrow();
      expect(store.write(() => 'still usable')).toBe('still usable');
    });

    test('stats counts entries per collection and reports a size', () => {
      const empty = store.stats();
      expect(Object.values(empty.entries).every((n) => n === 0)).toBe(true);
      store.write((tx) => {
        for (let i = 0; i < 50; i++) tx.put('meta', ['pr', i], { state: 'open', body: 'x'.repeat(2000) });
        tx.put('queueIndex', ['org', 'host', 'owner', 'name', 'main'], 'q1');
      });
      const stats = store.stats();
      expect(stats.entries).toMatchObject({ meta: 50, queueIndex: 1, pullRequests: 0 });
      expect(stats.sizeBytes).toBeGreaterThan(100_000);
      expect(stats.sizeBytes).toBeGreaterThan(empty.sizeBytes);
    });

    test('after close every call throws StoreClosedError', async () => {
      store.write((tx) => tx.put('meta', ['a'], 1));
      await store.close();
      expect(() => store.read((tx) => tx.get('meta', ['a']))).toThrow(StoreClosedError);
      expect(() => store.write((tx) => tx.put('meta', ['a'], 2))).toThrow(StoreClosedError);
      expect(() => store.stats()).toThrow(StoreClosedError);
      await expect(store.close()).rejects.toThrow(StoreClosedError);
    });

    // Thirty fresh stores: a PostgreSQL store costs a database each, which on a loaded machine takes longer than the
    // suite's default 30 s (a hang guard, not a measure).
    test('property: random transactions and scans agree with the reference model', async () => {
      await checkScansAgainstModel(makeStore);
    }, 180_000);
  });
}
