/**
 * New runs: the main line's, up to `concurrency` (or the adaptive window) across all lanes, and the bisections', in their own pool of
 * `bisectionConcurrency`.
 */
import { knownToFail } from './bisection.js';
import type { Decision, Plan, PlanPullRequest } from './planner.js';
import { hasQueueTag, PR_IS } from '../../machines/index.js';
import { sameList, type LineupView } from './view.js';

export function startRuns(view: LineupView): Plan {
  const { input } = view;
  if (!hasQueueTag(input.state, 'startsWork')) return { decisions: [], wakeAt: null };
  const main = mainRuns(view);
  return { decisions: [...main.decisions, ...bisectionRuns(view)], wakeAt: main.wakeAt };
}

const isReady = (pr: PlanPullRequest | undefined): pr is PlanPullRequest => pr !== undefined && PR_IS.waiting(pr.state) && pr.group === null && !pr.mergeRequested;

/**
 * New runs, in line-up order. With batching, a batch is a chain of one lane: each member is expected on top of the
 * base and the members before it. A batch that must still wait holds back the PRs that depend on it (in single
 * mode, every PR behind it).
 */
function mainRuns(view: LineupView): Plan {
  const { lineup, settings, activeRuns, now } = view.input;
  const decisions: Decision[] = [];
  let wakeAt: number | null = null;
  let running = activeRuns.filter((run) => run.kind === 'main').length;
  const limit = Math.min(settings.concurrency, view.input.window ?? settings.concurrency);
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

/** The batch starting at `at`: ready PRs behind it that extend its chain, up to batchingMinSize. */
function batchFrom(view: LineupView, at: number): PlanPullRequest[] {
  const { lineup, settings } = view.input;
  const first = lineup[at] as PlanPullRequest;
  const segment = [first];
  const chain = [...view.expected(at), first.number];
  for (let next = at + 1; next < lineup.length && segment.length < settings.batchingMinSize; next++) {
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
  let running = view.input.activeRuns.filter((run) => run.kind === 'bisection').length;
  const skipRedundant = settings.optimizationMode === 'bisection_skip_redundant_tests';
  const groups = new Map<string, { bisectionId: string; members: PlanPullRequest[] }>();
  for (const pr of lineup) {
    if (pr.group === null || pr.bisectionId === null) continue;
    const group = groups.get(pr.group) ?? { bisectionId: pr.bisectionId, members: [] };
    group.members.push(pr);
    groups.set(pr.group, group);
  }
  for (const [name, { bisectionId, members }] of groups) {
    if (!members.every((member) => PR_IS.waiting(member.state) && !member.mergeRequested)) continue;
    const memory = bisections[bisectionId];
    const awaited = memory?.waits?.[name]?.after;
    if (awaited !== undefined && groups.has(awaited)) continue;
    const first = members[0] as PlanPullRequest;
    const firstAt = view.at(first.number) ?? 0;
    const basePrs = [...view.expected(firstAt)];
    const prs = members.map((member) => member.number);
    const chained = members.every((member, k) => sameList(view.expected(view.at(member.number) ?? 0), [...basePrs, ...prs.slice(0, k)]));
    if (!chained) {
      decisions.push({ kind: 'split', prs, bisectionId });
      continue;
    }
    if (skipRedundant && knownToFail(memory, prs, view.unmerged(basePrs))) {
      decisions.push(prs.length > 1 ? { kind: 'split', prs, bisectionId } : { kind: 'failAtOnce', pr: first.number, basePrs, bisectionId });
      continue;
    }
    if (running >= view.input.bisectionConcurrency) continue;
    decisions.push({ kind: 'startRun', runKind: 'bisection', prs, basePrs, bisectionId });
    running++;
  }
  return decisions;
}
