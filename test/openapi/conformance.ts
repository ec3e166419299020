/**
 * Checks responses against the generated OpenAPI document with a JSON Schema validator (ajv, draft 2020-12, the
 * dialect of OpenAPI 3.1). The API harness records every response the suite's servers send; a setup file fails the
 * test that produced a response the document does not describe.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openApiDocument } from '../../api/openapi.js';

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

type Json = Record<string, any>;

export interface ResponseCheck {
  /** `POST /getQueue 200`, the operation and status the response was checked as. */
  operation: string;
  problems: string[];
}

export function makeChecker(document: Json = openApiDocument({ publicUrl: 'http://localhost:8080', version: 'test' })) {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  const compiled = new Map<string, ValidateFunction>();

  /** The schema of one response of one operation; undefined when the document has no such operation. */
  function validatorFor(method: string, path: string, status: number, mediaType: string): ValidateFunction | undefined {
    const operation = (document.paths as Json)[path]?.[method.toLowerCase()] as Json | undefined;
    if (operation === undefined) return undefined;
    const response = (operation.responses[String(status)] ?? operation.responses.default) as Json | undefined;
    const content = response?.content as Json | undefined;
    const media =
      content === undefined ? undefined : Object.keys(content).find((type) => type.split(';')[0] === mediaType);
    const key = `${method} ${path} ${status} ${mediaType}`;
    if (content === undefined || media === undefined) {
      return Object.assign(() => false, {
        errors: [{ message: `the document has no ${mediaType} body for ${key}` }],
      }) as unknown as ValidateFunction;
    }
    let validate = compiled.get(key);
    if (validate === undefined) {
      validate = ajv.compile(content[media].schema as Json);
      compiled.set(key, validate);
    }
    return validate;
  }

  /** Checks one response; undefined when its route is not an operation of the document (a 404 for an unknown path). */
  function check(
    method: string,
    path: string,
    status: number,
    contentType: string,
    payload: string,
  ): ResponseCheck | undefined {
    const mediaType = contentType.split(';')[0]!.trim();
    const validate = validatorFor(method, path, status, mediaType);
    if (validate === undefined) return undefined;
    const operation = `${method} ${path} ${status}`;
    let body: unknown = payload;
    if (mediaType === 'application/json') {
      try {
        body = JSON.parse(payload);
      } catch {
        return { operation, problems: ['the body is not JSON'] };
      }
    }
    if (validate(body)) return { operation, problems: [] };
    const problems = (validate.errors ?? []).map(
      (error) => `${error.instancePath || '(body)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
    );
    return { operation, problems };
  }

  return { check, validatorFor, ajv };
}
