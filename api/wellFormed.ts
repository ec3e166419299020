/**
 * JSON may carry an unpaired UTF-16 surrogate (`"\ud800"`), which is not text: no store key may hold one and no
 * response could spell it. Every request body is walked once before its schema, and the first such string (or
 * object key) is refused as a 400 naming its field. The walk keeps its own stack: bodies may nest deeply.
 */
import { isWellFormed } from './schemas.js';

/** A value to look at, with its field name and its parent's step (the path is made only for the answer). */
interface Step {
  value: unknown;
  name?: string;
  parent?: Step;
}

function pathOf(step: Step | undefined, last?: string): string[] {
  const path = last === undefined ? [] : [last];
  for (let at = step; at !== undefined; at = at.parent) if (at.name !== undefined) path.push(at.name);
  return path.reverse();
}

/** The path of the first string or key that is not well-formed Unicode, or undefined when there is none. */
export function findMalformedText(body: unknown): string[] | undefined {
  const pending: Step[] = [{ value: body }];
  for (let step = pending.pop(); step !== undefined; step = pending.pop()) {
    const { value } = step;
    if (typeof value === 'string') {
      if (!isWellFormed(value)) return pathOf(step);
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push({ value: value[i], name: String(i), parent: step });
    } else if (typeof value === 'object' && value !== null) {
      const entries = Object.entries(value);
      for (const [key] of entries) if (!isWellFormed(key)) return pathOf(step, '(key)');
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, inner] = entries[i]!;
        pending.push({ value: inner, name: key, parent: step });
      }
    }
  }
  return undefined;
}
