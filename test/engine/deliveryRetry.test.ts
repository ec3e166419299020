/** How a webhook delivery whose application failed is retried (engine/runtime/retryPolicy.ts: decideDeliveryRetry). */
import { describe, expect, it } from 'vitest';
import { EngineError } from '../../engine/model/errors.js';
import { DependencyUnavailableError } from '../../engine/model/unavailable.js';
import { decideDeliveryRetry, DELIVERY_RETRY, STORE_DOWN_RETRY_MS } from '../../engine/runtime/retryPolicy.js';

const refused = () => new EngineError('queue_draining', 'the queue is draining');
const githubDown = () => Object.assign(new Error('Service unavailable'), { status: 503 });
const storeDown = () => new DependencyUnavailableError('store', 'connect ECONNREFUSED');

describe('webhook delivery retries', () => {
  it("GitHub's API failing: backoff as the effects', given up after maximumAttempts", () => {
    expect(decideDeliveryRetry(1, githubDown())).toEqual({ action: 'retry', delayMs: 1_000 });
    expect(decideDeliveryRetry(3, githubDown())).toEqual({ action: 'retry', delayMs: 4_000 });
    expect(decideDeliveryRetry(DELIVERY_RETRY.maximumAttempts - 1, githubDown())).toEqual({
      action: 'retry',
      delayMs: DELIVERY_RETRY.maximumIntervalMs,
    });
    expect(decideDeliveryRetry(DELIVERY_RETRY.maximumAttempts, githubDown())).toEqual({ action: 'giveUp' });
  });

  it('the engine refusing (alone, or every handler of several) is not retried; one other failure among them is', () => {
    expect(decideDeliveryRetry(1, refused())).toEqual({ action: 'drop' });
    expect(decideDeliveryRetry(1, new AggregateError([refused(), refused()]))).toEqual({ action: 'drop' });
    expect(decideDeliveryRetry(1, new AggregateError([refused(), githubDown()]))).toEqual({
      action: 'retry',
      delayMs: 1_000,
    });
    // A stopped engine is the process going away, not a refusal.
    expect(decideDeliveryRetry(1, new EngineError('engine_stopped', 'the engine is stopped'))).toEqual({
      action: 'retry',
      delayMs: 1_000,
    });
  });

  it('the store down counts no attempt, however many there were, and wins over any other failure', () => {
    expect(decideDeliveryRetry(DELIVERY_RETRY.maximumAttempts + 5, storeDown())).toEqual({
      action: 'storeDown',
      delayMs: STORE_DOWN_RETRY_MS,
    });
    expect(decideDeliveryRetry(1, new AggregateError([refused(), storeDown()]))).toEqual({
      action: 'storeDown',
      delayMs: STORE_DOWN_RETRY_MS,
    });
  });
});
