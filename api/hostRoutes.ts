/**
 * The git host's inbound routes (webhooks: engine/providers/hostPlugin.ts `InboundRoute`), each handed the body as
 * received (a signature may be over the raw bytes). A refusal is answered in the one error shape, with its code of the
 * catalogue; anything else with the host's status and message.
 */
import type { FastifyInstance } from 'fastify';
import type { InboundRoute } from '../hosts/hostPlugin.js';
import { replyWith } from './errors.js';

export async function registerHostRoutes(app: FastifyInstance, routes: readonly InboundRoute[]): Promise<void> {
  if (routes.length === 0) return;
  await app.register(async (scope) => {
    // In this scope JSON stays text: a signature is checked over the body exactly as the host sent it.
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    for (const route of routes) {
      // No token: the host checks what it receives (a delivery's signature).
      scope.post(route.path, { config: { access: 'public' } }, async (request, reply) => {
        const answer = await route.handle({
          headers: request.headers,
          body: typeof request.body === 'string' ? request.body : '',
        });
        if (answer.refusal !== undefined) {
          // The host's words for its refusal (a signature that does not match, …) are passed on under its code.
          const error = replyWith(answer.refusal, answer.message);
          return reply.code(error.status).type('application/json; charset=utf-8').send(error.body);
        }
        return reply.code(answer.status).send({ message: answer.message });
      });
    }
  });
}
