/** The version of this package, for --version and the OpenAPI document. */
import { readFileSync } from 'node:fs';

/** package.json sits above cli/ when run from source and above dist/cli/ when built. */
export function version(): string {
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'greenline' && pkg.version !== undefined) return pkg.version;
    } catch {
      // not at this level
    }
  }
  return 'unknown';
}
