/**
 * Opening a store: the dashboard's session key that stores of earlier builds kept in `meta` is removed (sessions
 * are signed with a key file now, and a key in the store is in every backup); the page-token secret is made at the
 * start, so listing never writes; a store that holds all it needs is only read.
 */
import { expect, test } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { createMemoryStore } from '../../engine/store/index.js';
import type { Store } from '../../engine/store/store.js';
import { checkStoreFormat } from '../../engine/storeFormat.js';

/** The store, counting the write transactions that wrote or removed something. */
function counting(store: Store): { store: Store; writes: () => number } {
  let writes = 0;
  const wrapped: Store = {
    ...store,
    kind: store.kind,
    read: (fn) => store.read(fn),
    stats: () => store.stats(),
    close: () => store.close(),
    write: (fn) =>
      store.write((tx) => {
        let changed = false;
        const result = fn({
          ...tx,
          get: tx.get.bind(tx),
          scan: tx.scan.bind(tx),
          count: tx.count.bind(tx),
          put: (...args) => {
            changed = true;
            tx.put(...args);
          },
          remove: (...args) => {
            changed = true;
            return tx.remove(...args);
          },
        });
        if (changed) writes++;
        return result;
      }),
  };
  return { store: wrapped, writes: () => writes };
}

test('an earlier build’s session key leaves the store; the page-token secret is made at the start', () => {
  const store = createMemoryStore();
  store.write((tx) => {
    tx.put('meta', ['format'], 2);
    tx.put('meta', ['dashboardSessionKey'], 'e1Gd-8hqastpNQfPR9vaNFb8wP_-CDP7Lj3iKo77uA0');
  });
  const engine = new Engine(store);
  const meta = store.read((tx) => [...tx.scan('meta')].map(({ key }) => key.join('/')));
  expect(meta).not.toContain('dashboardSessionKey');
  expect(meta).toContain('flaky/pageTokenSecret');
  // Sessions are signed with the engine's key, not with anything of the store.
  expect(engine.sessionKey()).toHaveLength(32);
});

test('a store that holds its format and secrets is only read when opened', () => {
  const { store, writes } = counting(createMemoryStore());
  checkStoreFormat(store);
  expect(writes()).toBe(1);
  checkStoreFormat(store);
  new Engine(store);
  expect(writes()).toBe(1);
});
