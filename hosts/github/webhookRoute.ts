/**
 * POST /github/webhooks: GitHub's deliveries, handed as received (the signature is over the raw bytes) to the
 * receiver (engine/providers/github/webhookReceiver.ts). 401 for a missing or wrong signature (nothing changes), 400 for a delivery without
 * its id or event or with a body that is not JSON, 202 once stored (it is applied right after, in the background, and
 * tried again while GitHub's API or the store is down), 200 for a redelivery accepted before; 503 with retry-after
 * when the store cannot take it.
 */
import type { InboundRoute } from '../hostPlugin.js';
import type { Delivery, DeliveryAnswer } from '../../engine/providers/github/webhookReceiver.js';

export const GITHUB_WEBHOOKS_PATH = '/github/webhooks';

export interface WebhookReceiver {
  receive(delivery: Delivery): Promise<DeliveryAnswer>;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The receiver's route: no token (the receiver checks the delivery's signature). */
export function gitHubWebhookRoute(receiver: WebhookReceiver): InboundRoute {
  return {
    method: 'POST',
    path: GITHUB_WEBHOOKS_PATH,
    handle: async (request) => {
      const answer = await receiver.receive({
        id: header(request.headers['x-github-delivery']),
        name: header(request.headers['x-github-event']),
        signature: header(request.headers['x-hub-signature-256']),
        body: request.body,
      });
      if (answer.status === 401) return { ...answer, refusal: 'unauthorized' };
      if (answer.status === 400) return { ...answer, refusal: 'bad_request' };
      return answer;
    },
  };
}
