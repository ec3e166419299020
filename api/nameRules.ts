/**
 * The names the API accepts before they become store keys and git refs: a host, an owner or repository name segment,
 * a branch name by git's own rules, and text that is well-formed Unicode. The schemas (api/schemas.ts) build on them.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding (or refusing) control characters is what it is for
const CONTROL_OR_SPACE = /[\x00-\x20\x7f]/;
/** An unpaired UTF-16 surrogate: JSON can carry one (`"\ud800"`), but it is not text and no store key may hold it. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/** True when `text` is well-formed Unicode (no unpaired surrogate). */
export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}
/** A git host's name, with an optional port. */
export const HOST =
  /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*(?::[0-9]{1,5})?$/;
const NAME_SEGMENT = /^[A-Za-z0-9_.-]+$/;

/** A name or owner segment; none ends in ".git" (git hosts refuse that, and the local host keeps `<name>.git`). */
export function isPathSegment(segment: string): boolean {
  return NAME_SEGMENT.test(segment) && segment !== '.' && segment !== '..' && !segment.toLowerCase().endsWith('.git');
}

/** Git's rules for a branch name (git-check-ref-format), so every queue branch is one git accepts. */
export function isValidBranchName(name: string): boolean {
  if (name.length === 0 || name.length > 255 || name === '@') return false;
  if (CONTROL_OR_SPACE.test(name) || /[~^:?*[\\]/.test(name) || !isWellFormed(name)) return false;
  if (name.includes('..') || name.includes('@{') || name.includes('//')) return false;
  if (name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name.startsWith('-')) return false;
  return name.split('/').every((part) => !part.startsWith('.') && !part.endsWith('.lock'));
}
