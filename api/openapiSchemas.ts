/** The JSON Schema of a zod schema as the OpenAPI document holds it, and the one error response every operation has. */
import { z } from 'zod';
import { ErrorBody } from './responseSchemas.js';
import { documentedInput, MAX_BODY_BYTES } from './schemas.js';

export type JsonSchema = Record<string, unknown>;

export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const generated = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    // A preprocess cannot be expressed: the registry says what it accepts; a refinement's rule is left to the text.
    unrepresentable: 'any',
    override: (context) => {
      const documented = documentedInput.get(context.zodSchema as unknown as z.ZodType);
      if (documented === undefined) return;
      for (const key of Object.keys(context.jsonSchema)) delete (context.jsonSchema as JsonSchema)[key];
      Object.assign(context.jsonSchema, documented.jsonSchema);
    },
  }) as JsonSchema;
  delete generated.$schema;
  return generated;
}

export const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

export const ERROR_RESPONSE = {
  description:
    'A failure: 400 invalid input (or deleting a non-empty queue), 401 missing or wrong token, 404 unknown queue, PR, run or test, ' +
    `405 wrong method, 409 conflicting state, 413 body over ${MAX_BODY_BYTES / 1024 / 1024} MiB, 415 not JSON, 501 not built, 503 shutting down`,
  content: json(jsonSchema(ErrorBody, 'output')),
};
