/**
 * One home for the failure policy: in the planner, only engine/planner/failurePolicy.ts reads the anti-flake depth
 * and the counters a failing PR is judged by; the rest of the planner asks it (comments aside). The counters are the
 * PR machine's: the planner's input takes them through `pullRequestFacts`, not copied field by field.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { expect, test } from 'vitest';

const PLANNER = new URL('../../engine/planner/', import.meta.url);
const FACTS = /\b(pendingFailureDepth|runsBehindEnded|runsBehindFailed|failureRetests)\b/;

/** The source without its comments (block and line). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

test('the planner states the failure rule in failurePolicy.ts only', () => {
  const readers = readdirSync(PLANNER)
    .filter((file) => file.endsWith('.ts'))
    .filter((file) => FACTS.test(code(readFileSync(new URL(file, PLANNER), 'utf8'))));
  expect(readers).toEqual(['failurePolicy.ts']);
});

test('the planner input is the machine facts, not a copy of the record field by field', () => {
  const reconcile = code(readFileSync(new URL('../../engine/transaction/reconcile.ts', import.meta.url), 'utf8'));
  expect(reconcile).toContain('pullRequestFacts(');
  expect(reconcile).not.toMatch(FACTS);
});
