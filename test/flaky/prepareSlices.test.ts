/**
 * The upload parser's worker hands its aggregate back a slice at a time, each only when asked
 * (engine/flaky/prepareWorker.ts): a 200,000-test aggregate rebuilt from one message held the service's event loop
 * for seconds. The slices put together are the aggregate parsed in the process.
 */
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { prepareUpload } from '../../engine/flaky/prepare.js';
import { prepareOffThread, startWorker } from '../../engine/flaky/prepareOffThread.js';
import { SLICE_TESTS, type WorkerAnswer } from '../../engine/flaky/prepareSlices.js';
import { junitXml, REPO } from './helpers.js';

const count = 2 * SLICE_TESTS + 17;
const input = {
  repo: REPO,
  variant: '',
  reports: [
    {
      file: 'r.xml',
      xml: junitXml(
        Array.from({ length: count }, (_, i) => ({
          name: `t${i}`,
          outcome: i % 7 === 0 ? ('failed' as const) : ('passed' as const),
        })),
      ),
    },
  ],
};

describe("the upload parser's worker", () => {
  it('sends one slice of at most SLICE_TESTS tests, the next only when asked, the totals with the last', async () => {
    const worker = startWorker(input);
    try {
      const sizes: number[] = [];
      for (;;) {
        const [answer] = (await once(worker, 'message')) as [WorkerAnswer];
        if (!answer.ok) throw new Error(answer.message);
        sizes.push(answer.tests.length);
        if (answer.totals !== undefined) break;
        worker.postMessage('next');
      }
      expect(sizes).toEqual([SLICE_TESTS, SLICE_TESTS, 17]);
    } finally {
      await worker.terminate();
    }
  });

  it('the slices put together are the aggregate parsed in the process', async () => {
    const offThread = await prepareOffThread(input);
    const inProcess = prepareUpload(input);
    expect(offThread.tests.size).toBe(count);
    expect([...offThread.tests]).toEqual([...inProcess.tests]);
    expect({ ...offThread, tests: undefined }).toEqual({ ...inProcess, tests: undefined });
  });
});
