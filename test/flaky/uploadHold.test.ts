/**
 * How long one transaction of a large upload holds the event loop (issue 30's isolation goal: another queue's
 * getQueue P99 at most 2× its P99 alone). Its callback runs on the loop, and its time is its writes: measured, 500
 * tests a transaction held the loop about 14 ms of CPU, against about 3 ms for a getQueue. The time itself cannot be
 * asserted (machines are shared and noisy), so the writes are counted: no transaction of the upload makes more than
 * PUT_BUDGET puts (100 new tests, about two puts each, and the upload's own records; 500 a transaction made 1,076).
 */
import { expect, test } from 'vitest';
import { createMemoryStore } from '../../engine/store/index.js';
import type { Store, WriteTx } from '../../engine/store/store.js';
import { makeApi, REPO } from '../api/harness.js';

const PUT_BUDGET = 300;

/** The store, with the puts of each write transaction counted. */
function counting(store: Store): { store: Store; puts: number[] } {
  const puts: number[] = [];
  const counted =
    <R>(fn: (tx: WriteTx) => R) =>
    (tx: WriteTx): R => {
      let count = 0;
      const put: WriteTx['put'] = (...args) => {
        count += 1;
        return tx.put(...args);
      };
      try {
        return fn(new Proxy(tx, { get: (target, key) => (key === 'put' ? put : Reflect.get(target, key)) }));
      } finally {
        puts.push(count);
      }
    };
  const write = store.write.bind(store);
  const writeAsync = store.writeAsync?.bind(store);
  return {
    puts,
    store: Object.assign(store, {
      write: <R>(fn: (tx: WriteTx) => R) => write(counted(fn)),
      ...(writeAsync === undefined ? {} : { writeAsync: <R>(fn: (tx: WriteTx) => R) => writeAsync(counted(fn)) }),
    }),
  };
}

test('no transaction of a 3,000-test upload makes more than the budget of puts', async () => {
  const { store, puts } = counting(createMemoryStore());
  const api = await makeApi(store);
  try {
    const cases = Array.from(
      { length: 3000 },
      (_, i) =>
        `<testcase classname="pkg.C${i % 50}" name="t${i}">${i % 7 === 0 ? '<failure message="x"/>' : ''}</testcase>`,
    );
    puts.length = 0;
    const response = await api.post('flaky-tests/upload', {
      repo: REPO,
      commit_sha: 'abcdef1',
      branch: 'main',
      reports: [{ file: 'r.xml', xml: `<testsuite name="s">${cases.join('')}</testsuite>` }],
    });
    expect(response.statusCode).toBe(200);
    expect(store.read((tx) => tx.count('flakyTests'))).toBe(3000);
    const total = puts.reduce((sum, count) => sum + count, 0);
    expect(total).toBeGreaterThanOrEqual(3000);
    expect(Math.max(...puts)).toBeLessThanOrEqual(PUT_BUDGET);
  } finally {
    await api.close();
  }
});
