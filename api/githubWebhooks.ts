/**
 * POST /github/webhooks: GitHub's deliveries, handed as received (the signature is over the raw bytes) to the
 * GitHub provider's receiver. 401 for a missing or wrong signature (nothing changes), 400 for a delivery without its
 * id or event or with a body that is not JSON, 202 once stored (it is applied right after, in the background, and
 * tried again while GitHub's API or the store is down), 200 for a redelivery accepted before; 503 with retry-after
 * when the store cannot take it.
 */
import type { FastifyInstance } from 'fastify';
import type { DeliveryAnswer, Delivery } from '../engine/providers/github/webhookReceiver.js';
import { errorReply } from './errors.js';

export const GITHUB_WEBHOOKS_PATH = '/github/webhooks';

export interface WebhookReceiver {
  receive(delivery: Delivery): Promise<DeliveryAnswer>;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export async function registerGitHubWebhooks(app: FastifyInstance, receiver: WebhookReceiver): Promise<void> {
  await app.register(async (scope) => {
    // In this scope JSON stays text: the signature is checked over the body exactly as GitHub sent it.
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    // No token: the receiver checks the delivery's signature (401 when it is missing or wrong).
    scope.post(GITHUB_WEBHOOKS_PATH, { config: { access: 'public' } }, async (request, reply) => {
      const answer = await receiver.receive({
        id: header(request.headers['x-github-delivery']),
        name: header(request.headers['x-github-event']),
        signature: header(request.headers['x-hub-signature-256']),
        body: typeof request.body === 'string' ? request.body : '',
      });
      if (answer.status === 401 || answer.status === 400) {
        const error = errorReply(answer.status === 401 ? 'unauthorized' : 'bad_request', answer.message);
        return reply.code(error.status).type('application/json; charset=utf-8').send(error.body);
      }
      return reply.code(answer.status).send({ message: answer.message });
    });
  });
}
