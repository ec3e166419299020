/**
 * The README's table of errors, rendered from the catalogue (engine/model/errors.ts). `npm run readme:errors` writes
 * it between the README's markers; test/readme/errorTable.test.ts fails while the two differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES, ERRORS } from '../../engine/model/errors.js';

export const BEGIN = '<!-- error-catalogue: generated from engine/model/errors.ts by `npm run readme:errors` -->';
export const END = '<!-- error-catalogue: end -->';
export const README = fileURLToPath(new URL('../../README.md', import.meta.url));

export function errorTable(): string {
  const rows = [...ERROR_CODES]
    .sort((a, b) => ERRORS[a].status - ERRORS[b].status)
    .map(
      (reason) =>
        `| ${ERRORS[reason].status} | \`${ERRORS[reason].category}\` | \`${reason}\` | ${ERRORS[reason].when} |`,
    );
  return ['| status | code | reason | when |', '|---|---|---|---|', ...rows].join('\n');
}

/** The README's text between the markers, or undefined when they are missing. */
export function tableInReadme(readme: string): string | undefined {
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (begin < 0 || end < begin) return undefined;
  return readme.slice(begin + BEGIN.length, end).trim();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const readme = readFileSync(README, 'utf8');
  if (tableInReadme(readme) === undefined) throw new Error(`README.md has no ${BEGIN} … ${END} markers`);
  const before = readme.slice(0, readme.indexOf(BEGIN) + BEGIN.length);
  const after = readme.slice(readme.indexOf(END));
  writeFileSync(README, `${before}\n${errorTable()}\n${after}`);
}
