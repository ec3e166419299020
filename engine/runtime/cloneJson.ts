/** A deep copy of a plain JSON value (records are): faster than structuredClone for small objects. */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) copy[key] = cloneJson(field);
  return copy as T;
}
