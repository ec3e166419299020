/**
 * How the outbox retries a failed effect, per effect kind: one table, as Temporal's activity retry options (initial
 * interval, backoff coefficient, maximum interval, maximum attempts, non-retryable error kinds). The outbox reads the
 * policy here and nowhere else.
 *
 * - A failure whose kind is non-retryable drops the effect at once: what it was about no longer exists.
 * - Otherwise the effect is tried again after `initialIntervalMs × backoffCoefficient^(attempt − 1)`, at most
 *   `maximumIntervalMs`.
 * - A kind with `maximumAttempts` is given up after that many failures in a row: the outbox commits the input
 *   `giveUp` makes (the effect's result as a failure), so that one effect failing for good never holds up the queue's
 *   other effects. Without it, the effect is retried for as long as it fails.
 */
import type { Effect } from '../model/effects.js';
import { EngineError, type EngineErrorKind } from '../model/errors.js';
import { dependencyDown } from '../model/unavailable.js';
import type { QueueInput } from '../model/events.js';

export type EffectKind = Effect['kind'];
export type EffectOf<K extends EffectKind> = Extract<Effect, { kind: K }>;

interface Backoff {
  /** Delay before the second attempt (ms). */
  initialIntervalMs: number;
  /** Each further delay is the previous one times this (at least 1). */
  backoffCoefficient: number;
  /** No delay is longer (ms). */
  maximumIntervalMs: number;
  /** Error kinds (`EngineError.kind`) that are not retried: the effect is dropped at the first one. */
  nonRetryable: readonly EngineErrorKind[];
}

/** A kind is given up after `maximumAttempts` only with an input to commit in its place, so both or neither. */
export type RetryPolicy<K extends EffectKind = EffectKind> = Backoff &
  (
    | { maximumAttempts?: undefined; giveUp?: undefined }
    | { maximumAttempts: number; giveUp: (effect: EffectOf<K>, attempts: number, message: string) => GivenUp }
  );

/** A given-up effect: the input committed in its place, and what was given up on (for the log). */
export interface GivenUp {
  input: QueueInput;
  what: string;
}

/**
 * How long the outbox, a timer or a CI report waits before trying again when the store itself is down (the
 * database unreachable): not an effect's failure, so it counts no attempt and grows no backoff; the work resumes
 * within this of the store's return.
 */
export const STORE_DOWN_RETRY_MS = 2_000;

const BACKOFF: Backoff = {
  initialIntervalMs: 1_000,
  backoffCoefficient: 2,
  maximumIntervalMs: 5 * 60_000,
  nonRetryable: ['not_found'],
};

/** Every effect kind's policy: a kind without one is a compile error. */
export const RETRY_POLICIES: { readonly [K in EffectKind]: RetryPolicy<K> } = {
  fetchTargetHead: BACKOFF,
  checkPullRequest: BACKOFF,
  /** A test branch the git host fails to build 10 times in a row (about 8.5 minutes) ends its run with the host's error. */
  buildTestBranch: {
    ...BACKOFF,
    maximumAttempts: 10,
    giveUp: ({ request: { runId } }, attempts, message) => ({
      input: {
        type: 'branchBuilt',
        runId,
        result: {
          ok: false,
          reason: `the git host failed to build the test branch ${attempts} times: ${message}`,
          gaveUp: true,
        },
      },
      what: `run ${runId}`,
    }),
  },
  startCi: BACKOFF,
  endRun: BACKOFF,
  merge: BACKOFF,
  comment: BACKOFF,
  statusCheck: BACKOFF,
  stateLabel: BACKOFF,
  checkRun: BACKOFF,
  /** Writing the messages fails only with the store (the sending has its own retries: notifications/backoff.ts). */
  notify: BACKOFF,
};

export function retryPolicyOf<K extends EffectKind>(kind: K): RetryPolicy<K> {
  return RETRY_POLICIES[kind] as RetryPolicy<K>;
}

/** The delay before the attempt after failed attempt `attempt` (1 for the first failure). */
export function retryDelayMs(policy: Backoff, attempt: number): number {
  return Math.min(policy.maximumIntervalMs, policy.initialIntervalMs * policy.backoffCoefficient ** (attempt - 1));
}

/** What the outbox does after an effect failed for the `attempt`th time in a row. */
export type RetryDecision =
  | { action: 'drop' }
  /** `delayMs`: the wait before trying again should committing the give-up fail. */
  | ({ action: 'giveUp'; delayMs: number } & GivenUp)
  | { action: 'retry'; delayMs: number };

export function decideRetry(effect: Effect, attempt: number, error: unknown): RetryDecision {
  const policy: RetryPolicy = retryPolicyOf(effect.kind);
  if (error instanceof EngineError && policy.nonRetryable.includes(error.kind)) return { action: 'drop' };
  if (policy.maximumAttempts !== undefined && attempt >= policy.maximumAttempts) {
    // The table pairs each kind with its own giveUp; TypeScript does not follow that correlation through an index.
    const giveUp = policy.giveUp as (effect: Effect, attempts: number, message: string) => GivenUp;
    const message = error instanceof Error ? error.message : String(error);
    return { action: 'giveUp', ...giveUp(effect, attempt, message), delayMs: retryDelayMs(policy, attempt) };
  }
  return { action: 'retry', delayMs: retryDelayMs(policy, attempt) };
}

/**
 * Webhook deliveries accepted (answered 202) whose application failed: GitHub's API down or failing (a command's
 * permission check, its answer), or the store down. Tried again with the effects' backoff and given up after
 * `maximumAttempts` failures in a row (about 20 minutes); a refusal of the engine (an EngineError: the queue or the
 * PR is not in a state to take it) is not retried, since trying again would not change it. The store being down
 * counts no attempt: it is tried again after STORE_DOWN_RETRY_MS.
 */
export const DELIVERY_RETRY = { ...BACKOFF, maximumAttempts: 12 } as const;

export type DeliveryRetryDecision =
  | { action: 'drop' }
  | { action: 'giveUp' }
  | { action: 'retry'; delayMs: number }
  | { action: 'storeDown'; delayMs: number };

/** A failure of a webhook handler, or each of several (@octokit/webhooks gathers them in an AggregateError). */
function failuresOf(error: unknown): unknown[] {
  return error instanceof AggregateError ? error.errors.flatMap(failuresOf) : [error];
}

export function decideDeliveryRetry(attempt: number, error: unknown): DeliveryRetryDecision {
  const failures = failuresOf(error);
  if (failures.some((failure) => dependencyDown(failure)?.dependency === 'store'))
    return { action: 'storeDown', delayMs: STORE_DOWN_RETRY_MS };
  // An engine that stopped refuses everything: that is the process going away, not the delivery's fault.
  const refusal = (failure: unknown) => failure instanceof EngineError && failure.code !== 'engine_stopped';
  if (failures.every(refusal)) return { action: 'drop' };
  if (attempt >= DELIVERY_RETRY.maximumAttempts) return { action: 'giveUp' };
  return { action: 'retry', delayMs: retryDelayMs(DELIVERY_RETRY, attempt) };
}
