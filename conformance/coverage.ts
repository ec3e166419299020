/**
 * Coverage of a conformance run: per machine, the states and edges its definition declares (traversed with every
 * event), those the API can drive (the suite's alphabet, with follow-ups), those observed, and why the rest cannot be.
 */
import { API, FULL, UNREACHABLE, UNREACHABLE_EDGES } from './alphabets.js';
import { machineGraph } from './paths.js';
import type { PathResult } from './runPaths.js';

export type MachineKey = keyof typeof FULL;

export interface MachineCoverage {
  machine: MachineKey;
  states: { defined: number; reachable: number; reached: number };
  edges: { defined: number; reachable: number; reached: number };
  /** Reachable through the API but not reached by this run. */
  missed: string[];
  /** Not reachable through the API, each with its reason. */
  unreachable: { edge: string; reason: string }[];
}

function reasonFor(edge: string): string {
  const shaped = UNREACHABLE_EDGES.find(([shape]) => shape.test(edge));
  if (shaped !== undefined) return shaped[1];
  const event = /--([A-Z_]+)/.exec(edge)?.[1] ?? '';
  return UNREACHABLE[event] ?? 'not caused by any API call in the suite’s setting';
}

export function coverageOf(machine: MachineKey, results: readonly PathResult[]): MachineCoverage {
  const full = machineGraph(FULL[machine]);
  const api = machineGraph(API[machine]);
  const reachedEdges = new Set(results.filter((r) => r.machine === machine).flatMap((r) => r.edges));
  const reachedStates = new Set(results.filter((r) => r.machine === machine).flatMap((r) => r.states));
  return {
    machine,
    states: {
      defined: full.states.size,
      reachable: api.states.size,
      reached: [...api.states].filter((s) => reachedStates.has(s)).length,
    },
    edges: {
      defined: full.edges.size,
      reachable: api.edges.size,
      reached: [...api.edges].filter((e) => reachedEdges.has(e)).length,
    },
    missed: [...api.edges].filter((edge) => !reachedEdges.has(edge)),
    unreachable: [...full.edges]
      .filter((edge) => !api.edges.has(edge))
      .map((edge) => ({ edge, reason: reasonFor(edge) })),
  };
}

export function printCoverage(coverage: readonly MachineCoverage[], verbose: boolean): string {
  const lines = [
    'coverage (through the API):',
    '  machine       states reached/reachable/defined   edges reached/reachable/defined',
  ];
  for (const c of coverage) {
    lines.push(
      `  ${c.machine.padEnd(13)} ${`${c.states.reached}/${c.states.reachable}/${c.states.defined}`.padEnd(34)} ${c.edges.reached}/${c.edges.reachable}/${c.edges.defined}`,
    );
  }
  for (const c of coverage) for (const edge of c.missed) lines.push(`  MISSED ${c.machine}: ${edge}`);
  const reasons = new Map<string, string[]>();
  for (const c of coverage) {
    for (const { edge, reason } of c.unreachable)
      reasons.set(reason, [...(reasons.get(reason) ?? []), `${c.machine}: ${edge}`]);
  }
  lines.push('not reachable through the API, and why:');
  for (const [reason, edges] of reasons) {
    lines.push(`  ${edges.length} edge${edges.length === 1 ? '' : 's'}: ${reason}`);
    if (verbose) for (const edge of edges) lines.push(`      ${edge}`);
  }
  return lines.join('\n');
}
