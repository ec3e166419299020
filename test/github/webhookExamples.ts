/**
 * Webhook payloads for tests start from GitHub's examples (`@octokit/webhooks-examples`), changed only where the test
 * needs its own numbers and SHAs, and are signed with the App's webhook secret by `@octokit/webhooks`.
 */
import { createRequire } from 'node:module';
import { Webhooks } from '@octokit/webhooks';

interface ExampleEvent {
  name: string;
  examples: Record<string, unknown>[];
}

const require = createRequire(import.meta.url);
const EXAMPLES = require('@octokit/webhooks-examples') as ExampleEvent[];

/** A deep copy of the first example of an event (and action, for events that have actions). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function example(name: string, action?: string): Record<string, any> {
  const event = EXAMPLES.find((candidate) => candidate.name === name);
  const found = event?.examples.find((payload) => action === undefined || payload.action === action);
  if (found === undefined)
    throw new Error(`no example of ${name}${action === undefined ? '' : `.${action}`} in @octokit/webhooks-examples`);
  return structuredClone(found);
}

export interface SignedDelivery {
  headers: Record<string, string>;
  body: string;
}

let deliveries = 0;

export async function signedDelivery(
  secret: string,
  name: string,
  payload: unknown,
  id = `delivery-${++deliveries}`,
): Promise<SignedDelivery> {
  const body = JSON.stringify(payload);
  const signature = await new Webhooks({ secret }).sign(body);
  return {
    headers: {
      'content-type': 'application/json',
      'x-github-event': name,
      'x-github-delivery': id,
      'x-hub-signature-256': signature,
    },
    body,
  };
}
