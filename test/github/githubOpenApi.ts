/**
 * GitHub's official OpenAPI description (`@octokit/openapi`, api.github.com) as a validator: which operation a
 * request is, whether its body is one GitHub accepts, whether a response body is one GitHub could send. The stand-in
 * checks every exchange with it, so a request GitHub would reject fails the test.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

type AddFormats = (ajv: Ajv) => Ajv;
const addFormats = addFormatsModule as unknown as AddFormats;

interface Operation {
  method: string;
  template: string;
  segments: string[];
  pointer: string;
  operation: { operationId: string; requestBody?: unknown; responses: Record<string, unknown>; parameters?: unknown[] };
}

export interface MatchedOperation {
  operationId: string;
  params: Record<string, string>;
  template: string;
  method: string;
}

/** OpenAPI 3.0's `nullable` in JSON Schema terms: `null` joins the type (or the alternatives, or the enum). */
function withoutNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutNullable);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node))
    out[key] = key === 'example' || key === 'examples' ? value : withoutNullable(value);
  if (out.nullable !== true) return out;
  delete out.nullable;
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}

function escapePointer(part: string): string {
  return part.replace(/~/g, '~0').replace(/\//g, '~1');
}

export class GitHubOpenApi {
  private readonly operations: Operation[] = [];
  private readonly ajv: Ajv;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly document: {
    paths: Record<string, Record<string, Operation['operation']>>;
    components: Record<string, Record<string, unknown>>;
  };

  constructor() {
    const require = createRequire(import.meta.url);
    const file = require.resolve('@octokit/openapi/generated/api.github.com.json');
    this.document = withoutNullable(JSON.parse(readFileSync(file, 'utf8'))) as typeof this.document;
    for (const [template, item] of Object.entries(this.document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
        this.operations.push({
          method: method.toUpperCase(),
          template,
          segments: template.split('/').slice(1),
          pointer: `#/paths/${escapePointer(template)}/${method}`,
          operation,
        });
      }
    }
    // OpenAPI 3.0 schemas: `nullable`, plus examples and GitHub's own keywords, which are not JSON Schema.
    this.ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, discriminator: false });
    addFormats(this.ajv);
    this.ajv.addSchema({ components: this.document.components }, 'github');
  }

  /** The operation of a request: literal segments win over parameters (`/git/refs` over `{ref}`). */
  match(method: string, path: string): MatchedOperation | undefined {
    const segments = path
      .split('/')
      .slice(1)
      .map((segment) => decodeURIComponent(segment));
    let best: { op: Operation; params: Record<string, string>; literals: number } | undefined;
    for (const op of this.operations) {
      if (op.method !== method || op.segments.length !== segments.length) continue;
      const params: Record<string, string> = {};
      let literals = 0;
      const fits = op.segments.every((segment, index) => {
        const actual = segments[index]!;
        const param = /^\{(.+)\}$/.exec(segment);
        if (param !== null) {
          params[param[1]!] = actual;
          return actual !== '';
        }
        literals++;
        return segment === actual;
      });
      if (fits && (best === undefined || literals > best.literals)) best = { op, params, literals };
    }
    return best === undefined
      ? undefined
      : { operationId: best.op.operation.operationId, params: best.params, template: best.op.template, method };
  }

  private resolve(value: unknown): Record<string, unknown> | undefined {
    let node = value as Record<string, unknown> | undefined;
    while (node !== undefined && typeof node.$ref === 'string') {
      const parts = (node.$ref as string)
        .replace(/^#\//, '')
        .split('/')
        .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
      node = parts.reduce<unknown>((at, part) => (at as Record<string, unknown> | undefined)?.[part], this.document) as
        | Record<string, unknown>
        | undefined;
    }
    return node;
  }

  private operationOf(match: MatchedOperation): Operation {
    return this.operations.find((op) => op.method === match.method && op.template === match.template)!;
  }

  private validator(key: string, schema: unknown): ValidateFunction {
    let validate = this.validators.get(key);
    if (validate === undefined) {
      // Refs inside point at the document's components, which the `github` schema holds.
      const rebased = JSON.parse(
        JSON.stringify(schema).replace(/"\$ref":"#\/components\//g, '"$ref":"github#/components/'),
      );
      validate = this.ajv.compile(rebased);
      this.validators.set(key, validate);
    }
    return validate;
  }

  private problems(validate: ValidateFunction): string {
    return (validate.errors ?? [])
      .slice(0, 5)
      .map((error) => `${error.instancePath || '(body)'} ${error.message ?? ''}`)
      .join('; ');
  }

  /** Why GitHub would reject this request body (undefined when it would not). */
  checkRequest(match: MatchedOperation, body: unknown): string | undefined {
    const op = this.operationOf(match);
    const requestBody = this.resolve(op.operation.requestBody);
    const schema = (requestBody?.content as Record<string, { schema?: unknown }> | undefined)?.['application/json']
      ?.schema;
    if (schema === undefined) return undefined;
    if (body === undefined) return requestBody?.required === true ? 'a body is required' : undefined;
    const validate = this.validator(`${match.method} ${match.template} request`, schema);
    return validate(body) ? undefined : this.problems(validate);
  }

  /**
   * Why GitHub would not take these query parameters: one the operation does not declare, a value off its schema,
   * or more than the `(max N)` its description documents (`per_page`: GitHub caps it silently, so a caller asking for
   * more gets fewer than it asked and takes the list for complete).
   */
  checkQuery(match: MatchedOperation, query: URLSearchParams): string | undefined {
    const declared = new Map<string, { schema?: Record<string, unknown>; description?: string }>();
    for (const parameter of this.operationOf(match).operation.parameters ?? []) {
      const resolved = this.resolve(parameter) as
        | { name: string; in: string; schema?: Record<string, unknown>; description?: string }
        | undefined;
      if (resolved?.in === 'query') declared.set(resolved.name, resolved);
    }
    for (const [name, value] of query) {
      const parameter = declared.get(name);
      if (parameter === undefined)
        return `the query parameter ${name} is not one of ${match.operationId}'s (${[...declared.keys()].join(', ') || 'none'})`;
      const type = parameter.schema?.type;
      if (type === 'integer' && !/^\d+$/.test(value)) return `${name}=${value} is not an integer`;
      const values = parameter.schema?.enum as string[] | undefined;
      if (values !== undefined && !values.includes(value)) return `${name}=${value} is not one of ${values.join(', ')}`;
      const max = /\(max (\d+)\)/.exec(parameter.description ?? '')?.[1];
      if (max !== undefined && Number(value) > Number(max))
        return `${name}=${value} is over the documented maximum of ${max}`;
    }
    return undefined;
  }

  /** Why GitHub could not send this response (an undocumented status, or a body off its schema). */
  checkResponse(match: MatchedOperation, status: number, body: unknown): string | undefined {
    const op = this.operationOf(match);
    const response = this.resolve(op.operation.responses[String(status)]);
    if (response === undefined) return `status ${status} is not documented for ${match.method} ${match.template}`;
    const schema = (response.content as Record<string, { schema?: unknown }> | undefined)?.['application/json']?.schema;
    // A status documented without a schema (GitHub's 409 of a merge, say) carries GitHub's usual {message}.
    if (schema === undefined) return undefined;
    const validate = this.validator(`${match.method} ${match.template} ${status}`, schema);
    return validate(body) ? undefined : this.problems(validate);
  }
}
