/**
 * Failure messages, normalised for grouping: the parts that differ between two occurrences of the same failure
 * (timestamps, UUIDs, memory addresses, hex ids, durations and other numbers) become placeholders, whitespace is
 * collapsed and the text is cut to a readable length.
 */
export const MAX_SUMMARY_LENGTH = 300;

const RULES: [RegExp, string][] = [
  // ISO 8601 and similar date-times (2024-01-02T03:04:05.678Z, 2024-01-02 03:04:05+01:00), then bare dates and times.
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b/gi, '<timestamp>'],
  [/\b\d{4}-\d{2}-\d{2}\b/g, '<timestamp>'],
  [/\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, '<timestamp>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  [/\b0x[0-9a-f]+\b/gi, '<address>'],
  // Hex ids (commit SHAs, object ids): 8+ hex digits with at least one digit and one letter.
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<hex>'],
  [/[-+]?\b\d+(?:[.,]\d+)*(?:e[-+]?\d+)?/gi, '<n>'],
];

export function normalizeFailureMessage(message: string): string {
  let text = message;
  for (const [pattern, replacement] of RULES) text = text.replace(pattern, replacement);
  text = text.replace(/\s+/g, ' ').trim();
  if (text === '') return '(no failure message)';
  return text.length > MAX_SUMMARY_LENGTH ? `${text.slice(0, MAX_SUMMARY_LENGTH - 1)}…` : text;
}
