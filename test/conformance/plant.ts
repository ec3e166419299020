/**
 * Planting a mutation table's patches (test/conformance/mutants.ts) in a copy of the sources. A patch's `from` is
 * found whatever the formatter did to its layout: a run of whitespace in it matches any run (line breaks and
 * indentation included), tokens it writes side by side may be split by a line break, and a list Biome breaks over
 * lines may end in a trailing comma before its closing bracket. So a row written against the sources at one line
 * width still applies after `biome format` at another (issue 31 takes the width from 184 to 120).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface Patch {
  file: string;
  from: string;
  to: string;
}

const WORD = /[\w$]/;
const CLOSING = new Set([')', ']', '}', '>']);
const literal = (char: string) => char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * The regular expression that finds `from` in any layout. Leading whitespace matches the indentation only (spaces
 * and tabs), trailing whitespace ending in a line break matches to the end of that line, so a patch that deletes
 * whole lines still leaves its neighbours on lines of their own.
 */
export function layoutPattern(from: string): RegExp {
  const lead = /^\s*/.exec(from)?.[0] ?? '';
  const trail = /\s*$/.exec(from.slice(lead.length))?.[0] ?? '';
  const body = from.slice(lead.length, from.length - trail.length);
  let source = lead === '' ? '' : '[ \\t]*';
  const chars = [...body];
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i] as string;
    if (/\s/.test(char)) continue;
    let next = i + 1;
    while (next < chars.length && /\s/.test(chars[next] as string)) next++;
    const after = chars[next];
    const spaced = next > i + 1;
    // A comma before a closing bracket may be there or not: Biome writes one when it breaks the list over lines.
    const commaBeforeClose = char === ',' && after !== undefined && CLOSING.has(after);
    source += commaBeforeClose ? ',?' : literal(char);
    if (after === undefined) break;
    if (WORD.test(char) && WORD.test(after)) source += spaced ? '\\s+' : '';
    else if (!commaBeforeClose && CLOSING.has(after)) source += '\\s*,?\\s*';
    else source += '\\s*';
  }
  if (trail.includes('\n')) source += '[ \\t]*\\n';
  else if (trail !== '') source += '[ \\t]*';
  return new RegExp(source, 'g');
}

/** How often `from` occurs in `text`, in any layout. */
export function occurrences(text: string, from: string): number {
  return [...text.matchAll(layoutPattern(from))].length;
}

/** Applies the patches to the sources under `dir`; throws unless each `from` is in its file exactly once. */
export async function plant(dir: string, patches: readonly Patch[]): Promise<void> {
  for (const patch of patches) {
    const path = join(dir, patch.file);
    const text = await readFile(path, 'utf8');
    const count = occurrences(text, patch.from);
    if (count !== 1)
      throw new Error(
        `the patch no longer applies: ${JSON.stringify(patch.from)} occurs ${count} times in ${patch.file} (exactly once expected)`,
      );
    await writeFile(
      path,
      text.replace(layoutPattern(patch.from), () => patch.to),
    );
  }
}
