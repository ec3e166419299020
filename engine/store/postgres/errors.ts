/** The PostgreSQL store's errors as its callers see them: what the worker answered, translated (postgresStore.ts). */
import { DependencyUnavailableError, QueueBusyError } from '../../model/unavailable.js';
import { StorageFullError } from '../store.js';
import { QUEUE_BUSY } from './protocol.js';
import { RETRYABLE_CODES } from './queueScope.js';
import { RemoteError } from './syncWorker.js';

/** A write refused because this process no longer holds the lease of a queue it wrote for as its driver. */
export class LeaseLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LeaseLostError';
  }
}

export const retryable = (error: unknown): boolean =>
  error instanceof RemoteError && error.code !== undefined && RETRYABLE_CODES.has(error.code);

export function translate(error: unknown): unknown {
  if (!(error instanceof RemoteError)) return error;
  if (error.name === 'LeaseLostError') return new LeaseLostError(error.message);
  if (error.code === QUEUE_BUSY)
    return new QueueBusyError(/\(scope (.*)\)$/.exec(error.message)?.[1] ?? '', error.message);
  if (error.code === '53100') return new StorageFullError(`the database's disk is full: ${error.message}`);
  if (error.unavailable)
    return new DependencyUnavailableError(
      'store',
      `the store's database (PostgreSQL) is unavailable: ${error.message}`,
      5,
      { cause: error },
    );
  return error;
}
