/**
 * The OpenAPI 3.1 document of the /v1 API, generated from the zod schemas the endpoints validate with and the
 * response schemas their views are typed by (zod 4's `z.toJSONSchema`, JSON Schema 2020-12 as OpenAPI 3.1 uses).
 * Nothing here is written by hand but the frame: paths, summaries, the error body and the token schemes.
 */
import type { z } from 'zod';
import type { Endpoint } from './endpoint.js';
import { METRICS_PATH, OPENAPI_PATH, POST_ENDPOINTS } from './endpoints.js';
import { ERROR_RESPONSE, json, jsonSchema, type JsonSchema } from './openapiSchemas.js';
import { MetricsText } from './responseSchemas.js';
import { MetricsQueryInput } from './schemas.js';
import { serviceOperations } from './openapiService.js';

function postOperation(endpoint: Endpoint) {
  return {
    post: {
      operationId: endpoint.path.replace(/[/-]([a-z])/g, (_match, letter: string) => letter.toUpperCase()),
      summary: endpoint.summary,
      ...(endpoint.ours === true ? { 'x-greenline-only': true } : {}),
      requestBody: { required: true, content: json(jsonSchema(endpoint.input, 'input')) },
      responses: {
        '200': { description: 'OK', content: json(jsonSchema(endpoint.output, 'output')) },
        default: ERROR_RESPONSE,
      },
    },
  };
}

function queryParameters(schema: z.ZodType) {
  const generated = jsonSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(generated.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: generated.required?.includes(name) ?? false,
    schema: property,
  }));
}

export interface OpenApiOptions {
  /** Where people reach the service; the document's server is `<publicUrl>/v1`. */
  publicUrl: string;
  version: string;
}

export function openApiDocument(options: OpenApiOptions) {
  const paths: Record<string, unknown> = {};
  for (const endpoint of POST_ENDPOINTS) paths[`/${endpoint.path}`] = postOperation(endpoint);
  paths[`/${METRICS_PATH}`] = {
    get: {
      operationId: METRICS_PATH,
      summary: "Prometheus metrics of the token's organization's queues",
      parameters: queryParameters(MetricsQueryInput),
      responses: {
        '200': {
          description: 'OK',
          content: { 'text/plain; version=0.0.4; charset=utf-8': { schema: jsonSchema(MetricsText, 'output') } },
        },
        default: ERROR_RESPONSE,
      },
    },
  };
  paths[`/${OPENAPI_PATH}`] = {
    get: {
      operationId: 'openapi',
      summary: 'This document (no token needed)',
      security: [],
      responses: { '200': { description: 'OK', content: json({ type: 'object' }) } },
    },
  };
  // The hosted service's newer paths and the health checks (openapiService.ts).
  Object.assign(paths, serviceOperations(options.publicUrl));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Greenline',
      version: options.version,
      description:
        'A merge queue and flaky-test service answering the v1 API of an existing hosted merge queue. Generated from ' +
        'the zod schemas the service validates with. Operations marked x-greenline-only are not in the hosted service.',
    },
    servers: [{ url: `${options.publicUrl.replace(/\/+$/, '')}/v1` }],
    components: {
      securitySchemes: {
        apiToken: { type: 'apiKey', in: 'header', name: 'x-api-token' },
        bearer: { type: 'http', scheme: 'bearer', description: 'the same token as Authorization: Bearer <token>' },
      },
    },
    security: [{ apiToken: [] }, { bearer: [] }],
    paths,
  };
}

export type OpenApiDocument = ReturnType<typeof openApiDocument>;
