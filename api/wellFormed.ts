/**
 * JSON may carry an unpaired UTF-16 surrogate (`"\ud800"`), which is not text: no store key may hold one and no
 * response could spell it. Every request body is walked once before its schema, and the first such string (or
 * object key) is refused as a 400 naming its field.
 */
import { isWellFormed } from './schemas.js';

/** The path of the first string or key that is not well-formed Unicode, or undefined when there is none. */
export function findMalformedText(value: unknown, path: string[] = []): string[] | undefined {
  if (typeof value === 'string') return isWellFormed(value) ? undefined : path;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findMalformedText(value[i], [...path, String(i)]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, inner] of Object.entries(value)) {
    if (!isWellFormed(key)) return [...path, '(key)'];
    const found = findMalformedText(inner, [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}
