/**
 * What known clients of the hosted service send beyond the seed's fields (its Terraform provider, older and newer
 * releases). The addendum ignores unknown fields, and that stays so for fields nobody is known to send (`x-source`
 * and the like). A field a known client sends is not unknown: where it means the same as one of ours it is accepted
 * under that name; where we have nothing that does what it asks, it is refused with a 400 that says so, rather than
 * accepted and silently not done.
 */
import { z } from 'zod';

/** Older spellings, each the same setting as the one it names (the provider's getQueue reader still uses them). */
export const CLIENT_ALIASES = {
  testingTimeoutMins: 'testingTimeoutMinutes',
  isBatching: 'batch',
  batchingMaxWaitTimeMins: 'batchingMaxWaitTimeMinutes',
} as const;

/** Settings of the hosted service that Greenline does not have: a request that sets one is refused. */
export const UNSUPPORTED_CLIENT_SETTINGS: Record<string, string> = {
  notReadyTimeoutHours:
    'Greenline does not time out PRs waiting in NOT_READY; a PR stays queued until it is ready or cancelled',
};

/** The refused settings as schema fields: absent is fine, any value is a 400 naming the field and why. */
export const refusedClientFields = Object.fromEntries(
  Object.entries(UNSUPPORTED_CLIENT_SETTINGS).map(([name, why]) => [
    name,
    z
      .unknown()
      .refine((value) => value === undefined || value === null, `${name} is not supported: ${why}`)
      .optional(),
  ]),
);

/** A body with the older spellings under the names they stand for (the schema has already checked they agree). */
export function withCanonicalNames<T extends Record<string, unknown>>(body: T): T {
  const out: Record<string, unknown> = { ...body };
  for (const [alias, name] of Object.entries(CLIENT_ALIASES)) {
    if (out[alias] !== undefined && out[name] === undefined) out[name] = out[alias];
    delete out[alias];
  }
  for (const name of Object.keys(UNSUPPORTED_CLIENT_SETTINGS)) delete out[name];
  return out as T;
}
