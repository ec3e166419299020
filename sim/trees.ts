/**
 * What a run tests, as the scenario CI's common random numbers see it: the tree of its test branch, a set of PRs — the
 * PRs on the target branch at its base, the PRs ahead of it (its predictive base or, in parallel mode, its lane's
 * dependencies) and the PRs under test, each with whether it truly breaks the build. Two runs in two configurations
 * that test the same set of changes test the same tree, whatever the order in which those changes merged, so the
 * tree's digest is a set hash: the XOR of a 128-bit hash of each PR (the PRs of a tree are distinct), computed
 * incrementally as the target branch moves.
 *
 * `TreeGitHost` is the simulated git host that remembers, for each target head it answered, the digest of the PRs
 * merged up to it. A broken PR that reaches the target branch (a direct merge) is reverted at once in this model (see
 * ci.ts), so it is not part of the trees after it.
 */
import { createHash } from 'node:crypto';
import { SimGitHost } from '../engine/providers/sim/simGitHost.js';
import type { RepoRef } from '../engine/model/queues.js';
import type { MergeRequest, MergeResult } from '../engine/providers/types.js';

/** The digest of the empty tree (the target branch before any merge). */
export const EMPTY_TREE = 0n;

const prHashes = new Map<string, bigint>();

/** A PR's part of a tree digest: a 128-bit hash of its number and whether it is broken. */
export function prTreeHash(number: number, broken: boolean): bigint {
  const key = `${number}${broken ? '!' : ''}`;
  let hash = prHashes.get(key);
  if (hash === undefined) {
    hash = BigInt(`0x${createHash('sha256').update(`tree-pr\u0000${key}`).digest('hex').slice(0, 32)}`);
    if (prHashes.size > 1_000_000) prHashes.clear();
    prHashes.set(key, hash);
  }
  return hash;
}

/** The digest of a base tree with these PRs added. */
export function treeDigest(base: bigint, prs: readonly number[], isBroken: (number: number) => boolean): bigint {
  let digest = base;
  for (const number of prs) digest ^= prTreeHash(number, isBroken(number));
  return digest;
}

export class TreeGitHost extends SimGitHost {
  /** Target heads answered so far, with the digest of the PRs merged up to each. */
  private readonly trees = new Map<string, bigint>();

  constructor(
    private readonly isBroken: (number: number) => boolean,
    facts?: ConstructorParameters<typeof SimGitHost>[0],
  ) {
    super(facts);
  }

  override async targetHead(repo: RepoRef, branch: string): Promise<string> {
    const head = await super.targetHead(repo, branch);
    if (!this.trees.has(head)) this.trees.set(head, EMPTY_TREE);
    return head;
  }

  override async merge(request: MergeRequest): Promise<MergeResult> {
    const result = await super.merge(request);
    if (result.ok) {
      const number = request.pullRequest.number;
      const before = this.treeOf(request.expectedHead);
      // A broken PR that merged is reverted at once: the trees after it do not hold it.
      this.trees.set(result.head, this.isBroken(number) ? before : before ^ prTreeHash(number, false));
    }
    return result;
  }

  /** The digest of the PRs merged up to this target head. */
  treeOf(head: string): bigint {
    const tree = this.trees.get(head);
    if (tree === undefined) throw new Error(`the simulated git host never answered the target head ${head}`);
    return tree;
  }
}
