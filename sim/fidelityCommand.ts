/**
 * The scripted CI command of a fidelity run (fidelityReal.ts), run by the local host's built-in CI in the checked-out
 * test branch: `node dist/sim/fidelityCommand.js CONFIG.json`. It plays the scenario's CI on real git:
 *
 * - **the tree** is what is checked out: every PR of the scenario adds one file, `fidelity/prs/<N>`, holding `good` or
 *   `broken`, so the PRs merged on the target branch, the PRs ahead and the PRs under test are the files there;
 * - **the duration** is the simulator's (`runDurationMs` of the PRs under test, which it asks the service for with
 *   `getMergeQueueTestingDetails`), counted from the run's creation as the simulator counts it: the command sleeps
 *   until then, so that checking out and starting the command take none of the scenario's time;
 * - **the verdict** is the simulator's (`treePasses`): a tree holding a broken PR fails; otherwise the k-th verdict on
 *   that tree draws its flake from the counter-based generator keyed by the seed and the tree, k counted with one file
 *   created exclusively per verdict, so a run killed before its verdict uses up no draw, as in the simulator.
 *
 * Exit 0 (passes), 1 (fails); 2 when the command itself cannot work (its message on stderr, in the CI log).
 */
import { readFileSync } from 'node:fs';
import { runDurationMs, treePasses } from './ci.js';
import { treeDigest } from './trees.js';
import { takeVerdict, treeOfWorktree, type FidelityCommandConfig } from './fidelityTree.js';

async function runDetails(config: FidelityCommandConfig, runId: string): Promise<{ prs: number[]; createdAt: number }> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const response = await fetch(`${config.url}/v1/getMergeQueueTestingDetails`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-token': config.token },
        body: JSON.stringify({ repo: config.repo, targetBranch: config.targetBranch, testRunId: runId }),
      });
      const body = (await response.json()) as { testedPullRequests?: { prNumber: number }[]; createdAt?: string };
      if (response.status === 200 && body.testedPullRequests !== undefined && body.createdAt !== undefined) {
        return { prs: body.testedPullRequests.map((pr) => pr.prNumber), createdAt: Date.parse(body.createdAt) };
      }
      lastError = new Error(`getMergeQueueTestingDetails answered ${response.status}: ${JSON.stringify(body)}`);
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw lastError;
}

async function main(): Promise<number> {
  const [configPath] = process.argv.slice(2);
  const runId = process.env.GREENLINE_RUN_ID;
  if (configPath === undefined || runId === undefined) {
    process.stderr.write('usage: GREENLINE_RUN_ID=... node fidelityCommand.js CONFIG.json (run by the built-in CI)\n');
    return 2;
  }
  const config = JSON.parse(readFileSync(configPath, 'utf8')) as FidelityCommandConfig;
  const tree = treeOfWorktree(process.cwd());
  const { prs, createdAt } = await runDetails(config, runId);
  const durationMs = runDurationMs(config, prs);
  const wait = createdAt + durationMs - Date.now();
  const late = wait < 0 ? ` (started ${-wait} ms after it should have ended)` : '';
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const broken = [...tree.values()].some(Boolean);
  const digest = treeDigest(0n, [...tree.keys()], (number) => tree.get(number) === true).toString(16);
  const verdict = takeVerdict(config.verdictsDir, digest);
  const passes = treePasses(config, BigInt(`0x${digest}`), broken, verdict);
  const held = [...tree.keys()].sort((a, b) => a - b);
  process.stdout.write(
    `tree ${digest} holds #${held.join(', #')}; under test #${prs.join(', #')}; ${durationMs} ms${late}; verdict ${verdict} on this tree: ${passes ? 'passes' : broken ? 'fails (a broken PR)' : 'fails (a flake)'}\n`,
  );
  return passes ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`fidelity command: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
