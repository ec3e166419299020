/**
 * The OpenAPI operations of the routes beside the seed's endpoints (serviceRoutes.ts, server.ts): `GET /v1/status`,
 * the device authorization pair (RFC 8628), `flaky-ci/create-ci-run`, and the health checks, which live outside
 * /v1 (their operations name the service's root as their server). Generated from the schemas the routes parse with
 * and from the response schemas here, as the rest of the document is.
 */
import { z } from 'zod';
import { TOKEN_SCOPES } from '../engine/tokens.js';
import { ERROR_RESPONSE, json, jsonSchema } from './openapiSchemas.js';
import { ErrorBody } from './responseSchemas.js';
import { InitiateBody, TokensBody } from './serviceRoutes.js';

export const StatusBody = z.object({
  status: z.enum(['ok', 'starting']).meta({ description: '`starting` until the engine runs' }),
  version: z.string(),
  org: z.string().meta({ description: "the token's organization" }),
  scope: z.enum(TOKEN_SCOPES).meta({ description: "the token's scope" }),
});

export const DeviceAuthorizationBody = z.object({
  device_code: z.string().meta({ description: 'what the terminal polls device-auth/tokens with (secret)' }),
  user_code: z.string().meta({ description: 'what the person enters at verification_uri, XXXX-XXXX' }),
  verification_uri: z.string(),
  verification_uri_complete: z.string(),
  expires_in: z.number().int().meta({ description: 'seconds the codes are valid' }),
  interval: z.number().int().meta({ description: 'the least seconds between two polls' }),
  scope: z.enum(TOKEN_SCOPES).meta({ description: 'the scope asked for: the most the person may grant' }),
});

export const DeviceTokenBody = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  scope: z.enum(TOKEN_SCOPES),
  org: z.string(),
});

/** RFC 6749 5.2's error fields beside the service's own error shape. */
export const OAuthErrorBody = ErrorBody.extend({
  error: z.string().meta({
    description:
      'RFC 8628 3.5: authorization_pending, slow_down, access_denied, expired_token, invalid_grant, unsupported_grant_type',
  }),
  error_description: z.string(),
});

export const HealthBody = z.object({
  status: z.enum(['ok', 'ready', 'read-only']),
  reason: z.string().optional().meta({ description: 'why the service serves reads only (a full store)' }),
});

/** A request body sent as JSON (the hosted CLI) or as a form (RFC 8628 clients). */
function formOrJson(schema: z.ZodType) {
  const generated = jsonSchema(schema, 'input');
  return {
    required: false,
    content: { ...json(generated), 'application/x-www-form-urlencoded': { schema: generated } },
  };
}

const ok = (schema: z.ZodType) => ({ description: 'OK', content: json(jsonSchema(schema, 'output')) });
const PUBLIC = { security: [] };

export function serviceOperations(publicUrl: string): Record<string, unknown> {
  const root = [{ url: publicUrl.replace(/\/+$/, '') }];
  const health = (operationId: string, summary: string) => ({
    servers: root,
    get: { operationId, summary, ...PUBLIC, responses: { '200': ok(HealthBody), default: ERROR_RESPONSE } },
  });
  return {
    '/status': {
      get: {
        operationId: 'status',
        summary: "Whether the service is up, its version, and the token's organization and scope",
        responses: { '200': ok(StatusBody), default: ERROR_RESPONSE },
      },
    },
    '/device-auth/initiate': {
      post: {
        operationId: 'deviceAuthInitiate',
        summary:
          'Start a device sign-in (RFC 8628 3.1): a device code to poll with and a user code a person approves at /device (no token needed)',
        ...PUBLIC,
        requestBody: formOrJson(InitiateBody),
        responses: { '200': ok(DeviceAuthorizationBody), default: ERROR_RESPONSE },
      },
    },
    '/device-auth/tokens': {
      post: {
        operationId: 'deviceAuthTokens',
        summary: 'Poll a device sign-in (RFC 8628 3.4): the token once approved, else an OAuth error (no token needed)',
        ...PUBLIC,
        requestBody: { ...formOrJson(TokensBody), required: true },
        responses: {
          '200': ok(DeviceTokenBody),
          '400': {
            description: 'Not (yet) approved, or a wrong code: RFC 8628 3.5',
            content: json(jsonSchema(OAuthErrorBody, 'output')),
          },
          default: ERROR_RESPONSE,
        },
      },
    },
    '/flaky-ci/create-ci-run': {
      post: {
        operationId: 'flakyCiCreateCiRun',
        summary:
          'A path of the hosted service whose request is not published: answered 501 not_implemented (uploads record CI runs)',
        requestBody: { required: false, content: json({ type: 'object' }) },
        responses: { default: ERROR_RESPONSE },
      },
    },
    '/healthz': health('healthz', 'The process answers (no token needed; outside /v1)'),
    '/readyz': health(
      'readyz',
      'The store is open and the engine runs; read-only when the store is full (no token needed; outside /v1)',
    ),
  };
}
