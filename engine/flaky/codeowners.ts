/**
 * CODEOWNERS matching with GitHub's rules: each line is a gitignore-style pattern followed by owners; the LAST
 * matching line wins (a matching line without owners means "no owners"). Comments (#) and blank lines are skipped;
 * `!` negation and `[...]` ranges, which GitHub does not support, make a line be skipped too.
 */
import ignore, { type Ignore } from 'ignore';

export interface CodeownersRule {
  pattern: string;
  owners: string[];
  matcher: Ignore;
}

/** The longest CODEOWNERS an upload may carry, in characters of its JSON string (the API's schema checks it). */
export const MAX_CODEOWNERS_CHARS = 3 * 1024 * 1024;

/** Splits a line at unescaped whitespace (`\ ` escapes a space in a pattern). */
function fields(line: string): string[] {
  return line
    .split(/(?<!\\)\s+/)
    .map((field) => field.trim())
    .filter((field) => field !== '');
}

export function parseCodeowners(text: string): CodeownersRule[] {
  const rules: CodeownersRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const hash = raw.search(/(?<!\\)#/);
    const line = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    if (line === '') continue;
    const [pattern, ...owners] = fields(line);
    if (pattern === undefined || pattern.startsWith('!') || /\[|\]/.test(pattern)) continue;
    try {
      rules.push({ pattern, owners, matcher: ignore({ allowRelativePaths: true }).add(pattern) });
    } catch {
      // a pattern `ignore` cannot read is skipped, as GitHub skips lines it cannot parse
    }
  }
  return rules;
}

/** A test's file as a path relative to the repository root. */
export function normalizePath(file: string): string {
  let path = file.replace(/\\/g, '/').trim();
  while (path.startsWith('./')) path = path.slice(2);
  return path.replace(/^\/+/, '');
}

/** The owners of `file`: those of the last matching rule, or none. */
export function ownersOf(rules: readonly CodeownersRule[], file: string): string[] {
  const path = normalizePath(file);
  if (path === '') return [];
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i] as CodeownersRule;
    try {
      if (rule.matcher.ignores(path)) return [...rule.owners];
    } catch {
      return [];
    }
  }
  return [];
}
