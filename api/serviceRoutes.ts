/**
 * The hosted service's newer paths beside the seed's endpoints: `GET /v1/status` (is the service up, and whose is
 * this token), the device authorization pair `/v1/device-auth/initiate` and `/v1/device-auth/tokens` (RFC 8628, as a
 * CLI signs in; the person approves at /device, web/devicePage.ts), and `/v1/flaky-ci/create-ci-run`, answered 501
 * with why.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import { TOKEN_SCOPES } from '../engine/tokens.js';
import type { DeviceCodes } from '../engine/deviceCodes.js';
import { errorReply, type ErrorReply } from './errors.js';

/** The paths and their method, for the 405 of another method. */
export const SERVICE_PATHS: [string, string][] = [
  ['/v1/status', 'GET'],
  ['/v1/flaky-ci/create-ci-run', 'POST'],
  ['/v1/device-auth/initiate', 'POST'],
  ['/v1/device-auth/tokens', 'POST'],
];

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const FORM_LIMIT = 16 * 1024;

export const InitiateBody = z.object({
  /** The scope the terminal asks for (the person may grant it or less); RFC 8628 `scope`. Default write. */
  scope: z.enum(TOKEN_SCOPES).default('write'),
  client_id: z.string().max(256).optional(),
});

export const TokensBody = z.object({
  device_code: z.string().min(1).max(256),
  grant_type: z.string().max(256).optional(),
});

export interface ServiceRouteOptions {
  engine: Engine;
  devices: DeviceCodes;
  publicUrl: () => string;
  version: string;
}

function send(reply: FastifyReply, error: ErrorReply, extra: Record<string, unknown> = {}): FastifyReply {
  return reply
    .code(error.status)
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .send({ ...error.body, ...extra });
}

/** An OAuth error (RFC 6749 5.2: `error`, `error_description`) that is also the service's one error shape. */
function oauthError(reply: FastifyReply, error: ErrorReply): FastifyReply {
  return send(reply, error, { error: error.body.reason, error_description: error.body.message });
}

export async function registerServiceRoutes(app: FastifyInstance, options: ServiceRouteOptions): Promise<void> {
  const { engine, devices } = options;

  app.get('/v1/status', async (request, reply) =>
    reply.header('cache-control', 'no-store').send({
      status: engine.running() ? 'ok' : 'starting',
      version: options.version,
      org: request.org,
      scope: request.scope,
    }),
  );

  app.post('/v1/flaky-ci/create-ci-run', async (_request, reply) =>
    send(
      reply,
      errorReply('not_implemented', {
        path: 'flaky-ci/create-ci-run',
        instead: 'Greenline records a CI run from its uploads (POST /v1/flaky-tests/upload, greenline upload)',
      }),
    ),
  );

  await app.register(async (scope) => {
    // RFC 8628 clients post forms; the hosted service's CLI posts JSON. Both, here only.
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_LIMIT },
      (_request, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(String(body))));
      },
    );
    const open = { config: { access: 'public' } } as const;

    scope.post('/v1/device-auth/initiate', open, async (request, reply) => {
      const body = InitiateBody.parse(request.body ?? {});
      const started = devices.initiate(body.scope);
      if (started === undefined) {
        reply.header('retry-after', '60');
        return send(reply, errorReply('device_authorizations_full'));
      }
      const verification = `${options.publicUrl()}/device`;
      return reply.header('cache-control', 'no-store').send({
        device_code: started.deviceCode,
        user_code: started.userCode,
        verification_uri: verification,
        verification_uri_complete: `${verification}?user_code=${encodeURIComponent(started.userCode)}`,
        expires_in: started.expiresIn,
        interval: started.interval,
        scope: body.scope,
      });
    });

    scope.post('/v1/device-auth/tokens', open, async (request, reply) => {
      const body = TokensBody.parse(request.body ?? {});
      if (body.grant_type !== undefined && body.grant_type !== DEVICE_CODE_GRANT) {
        return oauthError(reply, errorReply('unsupported_grant_type', { grant: DEVICE_CODE_GRANT }));
      }
      const answer = devices.poll(body.device_code);
      if (answer.kind === 'error') return oauthError(reply, errorReply(answer.error));
      return reply
        .header('cache-control', 'no-store')
        .send({ access_token: answer.token, token_type: 'Bearer', scope: answer.scope, org: answer.org });
    });
  });
}
