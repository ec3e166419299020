/**
 * What the scripted CI command of a fidelity run (fidelityCommand.ts) shares with the harness that sets it up
 * (fidelityReal.ts): its configuration, where each PR's file lies in the tree, how it reads the checked-out tree and how
 * it counts verdicts.
 */
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FidelityCommandConfig {
  /** The service's URL and a token of the queue's organization. */
  url: string;
  token: string;
  repo: { host: string; owner: string; name: string };
  targetBranch: string;
  seed: number;
  medianMinutes: number;
  p90Minutes: number;
  flakeRate: number;
  /** Where verdicts are counted (one empty file per verdict: `<tree>.<k>`). */
  verdictsDir: string;
}

/** The folder of the test branch where each PR's file lies. */
export const PR_FILES_DIR = 'fidelity/prs';

/** The PRs of the checked-out tree, each with whether it is broken. */
export function treeOfWorktree(worktree: string): Map<number, boolean> {
  const prs = new Map<number, boolean>();
  let names: string[] = [];
  try {
    names = readdirSync(join(worktree, PR_FILES_DIR));
  } catch {
    return prs;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    prs.set(Number(name), readFileSync(join(worktree, PR_FILES_DIR, name), 'utf8').trim() === 'broken');
  }
  return prs;
}

/** Takes the next verdict index of a tree: the first `<tree>.<k>` this process creates. */
export function takeVerdict(dir: string, tree: string): number {
  for (let k = 0; ; k++) {
    try {
      closeSync(openSync(join(dir, `${tree}.${k}`), 'wx'));
      return k;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
