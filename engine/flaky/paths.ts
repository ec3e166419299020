/**
 * Test file paths as they enter a test's identity and the listings: relative to the repository root, with `/`
 * separators. Reporters such as mocha's write the absolute path on the runner (`/tmp/runner-7/work/test/a.spec.js`),
 * which differs from runner to runner; the uploader names the repository root it ran in, and that prefix goes.
 */

function normalise(path: string): string {
  return path.replace(/\\/g, '/').replace(/\/{2,}/g, '/');
}

/** `file` relative to `repoRoot` when it lies inside it; `./` dropped; otherwise as given (separators normalised). */
export function repoRelativePath(file: string, repoRoot?: string): string {
  let path = normalise(file.trim());
  if (repoRoot !== undefined && repoRoot !== '') {
    const root = normalise(repoRoot.trim()).replace(/\/+$/, '');
    if (root !== '' && path.startsWith(`${root}/`)) path = path.slice(root.length + 1);
  }
  while (path.startsWith('./')) path = path.slice(2);
  return path;
}
