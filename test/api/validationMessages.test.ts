/**
 * Issue 27 (8): a refused field names what it must be. For every request schema of the API, every enum and every
 * limit found in its JSON Schema (the OpenAPI document's) is violated alone, and the answer's detail for that field
 * must name the allowed values or the limit; no detail is zod's bare "Invalid input". Then the reported cases over
 * HTTP: `priority: "critical"`, `impactedTargets: "NONE"`, 100,001 targets.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { POST_ENDPOINTS } from '../../api/endpoints.js';
import { toErrorReply } from '../../api/errors.js';
import { MetricsQueryInput } from '../../api/schemas.js';
import { type Api, expectErrorBody, makeApi, queueBody } from './harness.js';

type Schema = Record<string, any>;

interface Case {
  schemaName: string;
  path: string[];
  value: unknown;
  /** What the message must hold. */
  names: string[];
}

const quoted = (value: unknown) => (typeof value === 'string' ? `"${value}"` : String(value));

/** Every enum and limit of a JSON Schema, each with a value that breaks it (and nothing else of its field). */
function casesOf(schemaName: string, schema: Schema, path: string[] = []): Case[] {
  const cases: Case[] = [];
  const add = (value: unknown, names: string[]) => cases.push({ schemaName, path, value, names });
  if (Array.isArray(schema.enum)) add('not-one-of-these', schema.enum.map(quoted));
  if (typeof schema.maximum === 'number' && schema.maximum < Number.MAX_SAFE_INTEGER)
    add(schema.maximum + 1, [String(schema.maximum)]);
  if (typeof schema.minimum === 'number' && schema.minimum > Number.MIN_SAFE_INTEGER)
    add(schema.minimum - 1, [String(schema.minimum)]);
  if (typeof schema.maxLength === 'number' && schema.pattern === undefined)
    add('x'.repeat(schema.maxLength + 1), [String(schema.maxLength)]);
  const item =
    schema.items?.type === 'string'
      ? 'x'
      : schema.items?.type === 'integer' || schema.items?.type === 'number'
        ? (schema.items.minimum ?? 1)
        : undefined;
  if (typeof schema.maxItems === 'number' && item !== undefined && schema.items.enum === undefined)
    add(Array(schema.maxItems + 1).fill(item), [String(schema.maxItems)]);
  if (typeof schema.minItems === 'number' && schema.minItems > 0) add([], [String(schema.minItems)]);
  for (const alternative of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])])
    cases.push(...casesOf(schemaName, alternative, path));
  for (const [name, property] of Object.entries<Schema>(schema.properties ?? {}))
    cases.push(...casesOf(schemaName, property, [...path, name]));
  return cases;
}

function bodyWith(path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  return { [head!]: bodyWith(rest, value) };
}

const SCHEMAS: [string, z.ZodType][] = [
  ...POST_ENDPOINTS.map((endpoint) => [endpoint.path, endpoint.input] as [string, z.ZodType]),
  ['getMergeQueueMetrics', MetricsQueryInput],
];

describe('every enum and limit of every request schema', () => {
  const cases = SCHEMAS.flatMap(([name, schema]) =>
    casesOf(name, z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Schema),
  );

  it('finds the schemas’ enums and limits', () => {
    expect(cases.length).toBeGreaterThan(100);
    expect(cases.some((c) => c.schemaName === 'submitPullRequest' && c.path.join('.') === 'priority')).toBe(true);
  });

  it('names the field and its allowed values or limit, never a bare "Invalid input"', () => {
    const problems: string[] = [];
    for (const { schemaName, path, value, names } of cases) {
      const [, schema] = SCHEMAS.find(([name]) => name === schemaName)!;
      const parsed = schema.safeParse(bodyWith(path, value));
      const field = path.length === 0 ? '(body)' : path.join('.');
      const shown =
        typeof value === 'string' || Array.isArray(value)
          ? `${typeof value} of length ${value.length}`
          : JSON.stringify(value);
      if (parsed.success) {
        problems.push(`${schemaName} ${field} = ${shown} was accepted`);
        continue;
      }
      const details = toErrorReply(parsed.error).body.details ?? [];
      for (const detail of details)
        if (/^Invalid input/.test(detail.message)) problems.push(`${schemaName} ${detail.field}: ${detail.message}`);
      const mine = details.filter((detail) => detail.field === field);
      if (!mine.some((detail) => names.every((n) => detail.message.includes(n)))) {
        problems.push(`${schemaName} ${field} = ${shown}: ${JSON.stringify(mine)} does not name ${names.join(', ')}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('the reported cases, over HTTP', () => {
  let api: Api | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  it('priority "critical", impactedTargets "NONE" and 100,001 targets each say what is allowed', async () => {
    api = await makeApi();
    const details = async (path: string, body: unknown) =>
      expectErrorBody(await api!.post(path, body), 400, 'bad_request').details;
    expect(await details('submitPullRequest', queueBody({ pr: { number: 1 }, priority: 'critical' }))).toEqual([
      { field: 'priority', message: 'must be a number or one of "urgent", "high", "medium", "low"' },
    ]);
    const pr = { number: 1, sha: 'abcdef1' };
    expect(await details('setImpactedTargets', queueBody({ pr, impactedTargets: 'NONE' }))).toEqual([
      { field: 'impactedTargets', message: 'must be an array or one of "ALL", "IMPACTS_ALL"' },
    ]);
    const targets = Array.from({ length: 100_001 }, (_, i) => `t${i}`);
    expect(await details('setImpactedTargets', queueBody({ pr, impactedTargets: targets }))).toEqual([
      { field: 'impactedTargets', message: 'must be at most 100000 items' },
    ]);
    expect(await details('submitPullRequest', queueBody({ pr: { number: 1 }, priority: 256 }))).toEqual([
      { field: 'priority', message: 'must be at most 255' },
    ]);
    expect(await details('getQueue', { repo: { host: 'github.com', owner: 'acme' }, targetBranch: 'main' })).toEqual([
      { field: 'repo.name', message: 'required: a string' },
    ]);
  });
});
