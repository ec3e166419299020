/**
 * Composition, not inheritance, to split a class (issue 31): no class of the service extends another of its own
 * classes unless it is a kind of it that overrides what it does. The Engine façade holds its reads (queueViews.ts,
 * pullRequestViews.ts, serviceReads.ts); a queue's transaction (QueueTx) holds its views of PRs and runs and what it
 * decided (prsView.ts, runsView.ts, outcome.ts). Read with TypeScript's parser: every `class … extends …` of the service's
 * folders, an Error's kind aside; a new one fails here until it is judged.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, test } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FOLDERS = ['machines', 'engine', 'hosts', 'web', 'api', 'sim', 'cli'];

/** Each `class A extends B` of the folders, as `file: A extends B`. */
function subclasses(): string[] {
  const found: string[] = [];
  for (const folder of FOLDERS) {
    for (const entry of readdirSync(join(root, folder), { recursive: true })) {
      const file = `${folder}/${String(entry)}`;
      if (!file.endsWith('.ts')) continue;
      const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.ES2022, true);
      const visit = (node: ts.Node): void => {
        if (ts.isClassLike(node)) {
          const base = node.heritageClauses?.find((clause) => clause.token === ts.SyntaxKind.ExtendsKeyword);
          const name = base?.types[0]?.expression.getText(source);
          if (name !== undefined && !name.endsWith('Error')) found.push(`${file}: ${node.name?.text} extends ${name}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
  }
  return found.sort();
}

test('no class extends another only to split a file: the façade holds its parts', () => {
  expect(subclasses()).toEqual([
    // The simulator's hosts and CI are kinds of the simulated ones: each overrides how a tree or a verdict is made.
    'sim/fork.ts: ForkGitHost extends TreeGitHost',
    'sim/forkCi.ts: ForkCi extends ScenarioCi',
    'sim/trees.ts: TreeGitHost extends SimGitHost',
  ]);
});
