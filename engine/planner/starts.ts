/**
 * New runs, from one pool of CI slots: `concurrency` + `bisectionConcurrency`. The main line holds at most
 * `concurrency` of them (or the adaptive window) across all lanes; bisection groups (and anti-flake retests, and PRs
 * isolated by speculation) may take any free slot, and take it first: their PRs are the oldest of the queue, and a
 * group that passes merges ahead of the PRs still waiting, so a failed batch's bisection never waits for new
 * main-line work. `bisectionConcurrency` is thus what the pool holds beyond the main line's slots: the bisections'
 * own, which the main line never takes.
 *
 * With batching, a batch starts once `batchingMinSize` PRs wait (or the oldest has waited
 * `batchingMaxWaitTimeMinutes`) and takes every ready PR of its chain up to the largest batch (`largestBatch`): under
 * a backlog batches grow, so the main line keeps up; below it they stay at `batchingMinSize` (batches.ts).
 */
import { QUEUE_POLICY } from '../model/policy.js';
import { largestBatch } from './batches.js';
import { knownToFail } from './bisectionMemory.js';
import type { Decision, Plan, PlanPullRequest } from './planner.js';
import { hasQueueTag, PR_IS } from '../../machines/index.js';
import { sameList, type LineupView } from './view.js';

export function startRuns(view: LineupView): Plan {
  const { input } = view;
  if (!hasQueueTag(input.state, 'startsWork')) return { decisions: [], wakeAt: null };
  const bisections = bisectionRuns(view);
  const started = bisections.filter((decision) => decision.kind === 'startRun').length;
  const main = mainRuns(view, started);
  return { decisions: [...main.decisions, ...bisections], wakeAt: main.wakeAt };
}

/** Whether the queue runs one pool of CI slots (queue policy 2, model/policy.ts), or a bisection pool of its own (1). */
function onePool(view: LineupView): boolean {
  return (view.input.policy ?? QUEUE_POLICY) >= 2;
}

/** The CI slots of the queue, the main line's and the bisections' together. */
export function poolOf(view: LineupView): number {
  return view.input.settings.concurrency + view.input.bisectionConcurrency;
}

const isReady = (pr: PlanPullRequest | undefined): pr is PlanPullRequest =>
  pr !== undefined && PR_IS.waiting(pr.state) && pr.group === null && !pr.mergeRequested;

/**
 * New runs, in line-up order. With batching, a batch is a chain of one lane: each member is expected on top of the
 * base and the members before it. A batch that must still wait holds back the PRs that depend on it (in single
 * mode, every PR behind it).
 */
function mainRuns(view: LineupView, bisectionsStarted: number): Plan {
  const { lineup, settings, activeRuns, now } = view.input;
  const decisions: Decision[] = [];
  let wakeAt: number | null = null;
  let running = activeRuns.filter((run) => run.kind === 'main').length;
  // The main line's share of the pool, less the main-line slots that bisections hold now.
  const free = onePool(view) ? poolOf(view) - activeRuns.length - bisectionsStarted : Number.POSITIVE_INFINITY;
  const limit = Math.min(settings.concurrency, view.input.window ?? settings.concurrency, running + Math.max(0, free));
  const taken = new Set<number>();
  const held = new Set<number>();
  for (let at = 0; at < lineup.length && running < limit; at++) {
    const pr = lineup[at];
    if (!isReady(pr) || taken.has(pr.number)) continue;
    const basePrs = [...view.expected(at)];
    if (basePrs.some((number) => held.has(number))) {
      held.add(pr.number);
      continue;
    }
    let prs = [pr.number];
    if (settings.batch && !pr.noBatch) {
      const segment = batchFrom(view, at);
      const oldest = Math.min(...segment.map((member) => member.readyAt ?? now));
      const deadline = oldest + settings.batchingMaxWaitTimeMinutes * 60_000;
      if (segment.length < settings.batchingMinSize && now < deadline) {
        wakeAt = wakeAt === null ? deadline : Math.min(wakeAt, deadline);
        if (!view.parallel) break;
        for (const member of segment) held.add(member.number);
        continue;
      }
      prs = segment.map((member) => member.number);
    }
    for (const number of prs) taken.add(number);
    decisions.push({ kind: 'startRun', runKind: 'main', prs, basePrs, bisectionId: null });
    running++;
  }
  return { decisions, wakeAt };
}

/** The batch starting at `at`: ready PRs behind it that extend its chain, up to the largest batch. */
function batchFrom(view: LineupView, at: number): PlanPullRequest[] {
  const { lineup, settings } = view.input;
  const first = lineup[at] as PlanPullRequest;
  const segment = [first];
  const chain = [...view.expected(at), first.number];
  const largest = largestBatch(settings);
  for (let next = at + 1; next < lineup.length && segment.length < largest; next++) {
    const candidate = lineup[next] as PlanPullRequest;
    if (candidate.group !== null) continue; // in a bisection: off the main line
    if (!sameList(view.expected(next), chain)) {
      if (view.parallel) continue; // another lane, or one that needs more than this chain
      break;
    }
    if (!isReady(candidate) || candidate.noBatch) break;
    segment.push(candidate);
    chain.push(candidate.number);
  }
  return segment;
}

/**
 * Runs for bisection groups. A group is a chain of one lane, tested on the known-good line ahead of it; one that is
 * not a chain is split further. With skip-redundant, a second half waits for its first half's verdict, and a group
 * known to fail on its base is split (or, alone, failed) without a run. No group starts while a merge is under way:
 * the merging PR is not in its base, and a pass on the head before it would have to be tested again.
 */
function bisectionRuns(view: LineupView): Decision[] {
  const { lineup, settings, bisections } = view.input;
  const decisions: Decision[] = [];
  if (lineup.some((pr) => pr.mergeRequested)) return decisions;
  // Any slot of the pool the main line does not hold (policy 1: the bisections' own pool).
  const shared = onePool(view);
  let free = shared
    ? poolOf(view) - view.input.activeRuns.length
    : view.input.bisectionConcurrency - view.input.activeRuns.filter((run) => run.kind === 'bisection').length;
  const skipRedundant = settings.optimizationMode === 'bisection_skip_redundant_tests';
  const groups = new Map<string, { bisectionId: string; members: PlanPullRequest[] }>();
  for (const pr of lineup) {
    if (pr.group === null || pr.bisectionId === null) continue;
    const group = groups.get(pr.group) ?? { bisectionId: pr.bisectionId, members: [] };
    group.members.push(pr);
    groups.set(pr.group, group);
  }
  const testing = testingGroups(view);
  for (const [name, { bisectionId, members }] of groups) {
    if (!members.every((member) => PR_IS.waiting(member.state) && !member.mergeRequested)) continue;
    const memory = bisections[bisectionId];
    const awaited = memory?.waits?.[name]?.after;
    if (awaited !== undefined && groups.has(awaited)) continue;
    const first = members[0] as PlanPullRequest;
    const firstAt = view.at(first.number) ?? 0;
    const basePrs = [...view.expected(firstAt)];
    const prs = members.map((member) => member.number);
    const chained = members.every((member, k) =>
      sameList(view.expected(view.at(member.number) ?? 0), [...basePrs, ...prs.slice(0, k)]),
    );
    if (!chained) {
      decisions.push({ kind: 'split', prs, bisectionId });
      continue;
    }
    if (skipRedundant && knownToFail(memory, prs, view.unmerged(basePrs))) {
      decisions.push(
        prs.length > 1
          ? { kind: 'split', prs, bisectionId }
          : { kind: 'failAtOnce', pr: first.number, basePrs, bisectionId },
      );
      continue;
    }
    if (free <= 0) continue;
    const under = view.unmerged(basePrs);
    const alongside = shared ? testing.filter((other) => other.bisectionId === bisectionId) : [];
    if (alongside.some((other) => !knownToFail(memory, [...other.prs, ...prs], under)) && siblingsWait(view, basePrs))
      continue;
    decisions.push({ kind: 'startRun', runKind: 'bisection', prs, basePrs, bisectionId });
    testing.push({ bisectionId, prs });
    free--;
  }
  return decisions;
}

/**
 * The groups being tested, by bisection. A group does not start while a group of its own bisection that could pass
 * along with it is being tested (their union is not known to fail): both were tested on the same base, so the first
 * to merge would move the base the other's pass was tested on, and it would be tested again. Halves of a set known to
 * fail are tested at once (at most one of them passes); a group split from one of them waits for the other's verdict,
 * as the closed forms of sim/theory.ts count (one group after another).
 */
function testingGroups(view: LineupView): { bisectionId: string; prs: readonly number[] }[] {
  const groups: { bisectionId: string; prs: readonly number[] }[] = [];
  for (const run of view.input.activeRuns) {
    if (run.kind !== 'bisection') continue;
    const first = view.input.lineup[view.at(run.prs[0] as number) ?? -1];
    if (first?.bisectionId !== null && first?.bisectionId !== undefined)
      groups.push({ bisectionId: first.bisectionId, prs: run.prs });
  }
  return groups;
}

/**
 * Whether a group waits for a group of its own bisection being tested (see testingGroups). Under queue policy 3 only
 * while the main line is quiet: no main-line run in progress and no PR outside a bisection but those of the group's
 * base. Otherwise the main line moves the base under both groups anyway (a main-line PR passes and merges during
 * their runs), so waiting saves no run in most cases and costs every PR of the waiting group one CI duration
 * (bench:failures, skip-redundant P90: 126 min under policy 1, 148 under policy 2's unconditional wait). The closed
 * forms' setting, one failed batch on an idle queue (test/sim/theory.test.ts), is quiet: there the groups still run
 * exactly as the closed forms count them.
 */
function siblingsWait(view: LineupView, basePrs: readonly number[]): boolean {
  const { input } = view;
  if ((input.policy ?? QUEUE_POLICY) < 3) return true;
  if (input.activeRuns.some((run) => run.kind === 'main')) return false;
  const base = new Set(basePrs);
  return input.lineup.every((pr) => pr.group !== null || base.has(pr.number));
}
