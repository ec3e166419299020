/**
 * A zod 4 issue as something a person can act on: the field, and what it must be. zod's own messages say
 * "Invalid input" for a union (`priority`, `impactedTargets`, `state` are unions) and word limits as
 * "Too big: expected array to have <=100000 items". Here every issue names the allowed values of an enum
 * (`values`), the limit of a too_big / too_small (`maximum`, `minimum`), each alternative of a union (or, when one
 * alternative had the right type, what failed in it), and otherwise keeps zod's message.
 */
import type { z } from 'zod';

/** A field (its path, `a.b.0`, or `(body)`) and what is wrong with it. */
export interface FieldError {
  field: string;
  message: string;
}

type Issue = z.core.$ZodIssue;
type PathKey = PropertyKey;

const fieldOf = (path: readonly PathKey[]) => (path.length === 0 ? '(body)' : path.map(String).join('.'));

const quoted = (values: readonly unknown[]) =>
  values.map((value) => (typeof value === 'string' ? `"${value}"` : String(value))).join(', ');

const plural = (n: number | bigint, one: string, many: string) => `${n} ${n === 1 || n === 1n ? one : many}`;

function sizeOf(origin: string, n: number | bigint): string {
  if (origin === 'array' || origin === 'set') return plural(n, 'item', 'items');
  if (origin === 'string') return plural(n, 'character', 'characters');
  if (origin === 'file') return plural(n, 'byte', 'bytes');
  return String(n);
}

function limitMessage(issue: Extract<Issue, { code: 'too_big' | 'too_small' }>): string {
  const big = issue.code === 'too_big';
  const bound = big ? issue.maximum : issue.minimum;
  const what = sizeOf(issue.origin, bound);
  if (issue.exact === true) return `must be exactly ${what}`;
  if (issue.inclusive === false) return `must be ${big ? 'less' : 'more'} than ${what}`;
  return `must be at ${big ? 'most' : 'least'} ${what}`;
}

const article = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);

/** What an alternative of a union wanted, when the value was not even of its kind; undefined when it was. */
function wanted(alternative: readonly Issue[]): string | undefined {
  // A value of another type: zod may still run a length check on it (a string against an array's max), noise.
  const mistyped = alternative.find((issue) => issue.path.length === 0 && issue.code === 'invalid_type');
  if (mistyped?.code === 'invalid_type') return article(mistyped.expected);
  const [only] = alternative;
  if (alternative.length === 1 && only?.path.length === 0 && only.code === 'invalid_value')
    return only.values.length === 1 ? quoted(only.values) : `one of ${quoted(only.values)}`;
  return undefined;
}

function unionErrors(issue: Extract<Issue, { code: 'invalid_union' }>, path: readonly PathKey[]): FieldError[] {
  const kinds = issue.errors.map(wanted);
  // An alternative of the value's kind (an array, but of too many items): what failed in it.
  const closest = issue.errors.find((_, i) => kinds[i] === undefined);
  if (closest !== undefined) return closest.flatMap((inner) => fieldErrors(inner, path));
  if (kinds.length === 0) return [{ field: fieldOf(path), message: issue.message }];
  return [{ field: fieldOf(path), message: `must be ${kinds.join(' or ')}` }];
}

/** The field errors of one issue; `prefix` is the path of an enclosing union or record. */
export function fieldErrors(issue: Issue, prefix: readonly PathKey[] = []): FieldError[] {
  const path = [...prefix, ...issue.path];
  const field = fieldOf(path);
  switch (issue.code) {
    case 'invalid_value':
      return [
        {
          field,
          message:
            issue.values.length === 1 ? `must be ${quoted(issue.values)}` : `must be one of ${quoted(issue.values)}`,
        },
      ];
    case 'too_big':
    case 'too_small':
      return [{ field, message: limitMessage(issue) }];
    case 'not_multiple_of':
      return [{ field, message: `must be a multiple of ${issue.divisor}` }];
    case 'invalid_union':
      return unionErrors(issue, path);
    case 'invalid_key':
    case 'invalid_element':
      return issue.issues.flatMap((inner) => fieldErrors(inner, path));
    case 'unrecognized_keys':
      return [{ field, message: `unknown field${issue.keys.length === 1 ? '' : 's'} ${quoted(issue.keys)}` }];
    case 'invalid_type': {
      const received = / received (\w+)$/.exec(issue.message)?.[1];
      if (received === 'undefined') return [{ field, message: `required: ${article(issue.expected)}` }];
      return [
        {
          field,
          message: `must be ${article(issue.expected)}${received === undefined ? '' : ` (received ${received})`}`,
        },
      ];
    }
    default:
      return [{ field, message: issue.message }];
  }
}

/** Every issue as `field: what it must be`, joined by `; ` (for a file's or the environment's errors). */
export function describeIssues(issues: readonly Issue[], whole = '(top level)'): string {
  return issues
    .flatMap((issue) => fieldErrors(issue))
    .map(({ field, message }) => `${field === '(body)' ? whole : field}: ${message}`)
    .join('; ');
}
