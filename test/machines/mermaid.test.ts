import { readFileSync } from 'node:fs';
import { parseMermaid, renderMermaidSVG } from 'beautiful-mermaid';
import { describe, expect, it } from 'vitest';
import { and, assign, initialTransition, not, setup, type AnyMachineSnapshot, type AnyStateMachine } from 'xstate';
import { MACHINES, type MachineName } from '../../machines/index.js';
import { toMermaid } from '../../machines/mermaid.js';
import { definedTransitions } from './graph.js';
import { MODELS } from './models.js';

interface ParsedEdge {
  source: string;
  target: string;
  event: string;
  guard: string;
  actions: string[];
}

/** Reads a diagram back: its states, initial state, final states and labelled edges. */
function parse(text: string): { states: string[]; initial: string[]; finals: string[]; edges: ParsedEdge[] } {
  const lines = text.split('\n');
  const result = { states: [] as string[], initial: [] as string[], finals: [] as string[], edges: [] as ParsedEdge[] };
  expect(lines[0]).toBe('stateDiagram-v2');
  for (const line of lines
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => l !== '')) {
    const declared = /^state "([^"]+)" as (\w+)$/.exec(line);
    if (declared) {
      result.states.push(declared[2]!);
      continue;
    }
    const edge = /^(\[\*\]|\w+) --> (\[\*\]|\w+)(?: : (.+))?$/.exec(line);
    if (!edge) continue;
    const [, source, target, label] = edge as unknown as [string, string, string, string | undefined];
    if (source === '[*]') result.initial.push(target);
    else if (target === '[*]') result.finals.push(source);
    else {
      const parts = /^(\S+)(?: \[(.+?)\])?(?: \/ (.+))?$/.exec(label ?? '');
      expect(parts, `label of ${line}`).not.toBeNull();
      result.edges.push({
        source,
        target,
        event: parts![1]!,
        guard: parts![2] ?? '',
        // Drop the params: `startSwitch(resumeTo=running)` is the action `startSwitch`.
        actions: parts![3] === undefined ? [] : parts![3].split(/, (?![^(]*\))/).map((a) => a.replace(/\(.*\)$/, '')),
      });
    }
  }
  return result;
}

const key = (edge: ParsedEdge): string =>
  `${edge.source} --${edge.event}${edge.guard ? ` [${edge.guard}]` : ''}${edge.actions.length ? ` / ${edge.actions.join(', ')}` : ''}--> ${edge.target}`;

const nameOf = (x: unknown): string =>
  typeof x === 'string' ? x : typeof x === 'object' && x !== null && 'type' in x ? String(x.type) : 'inline';

describe.each(Object.keys(MACHINES) as MachineName[])('toMermaid(%s)', (name) => {
  const machine: AnyStateMachine = MACHINES[name];
  const text = toMermaid(machine);
  const diagram = parse(text);
  const topLevel = Object.values(machine.root.states);

  it('is deterministic', () => {
    expect(toMermaid(machine)).toBe(text);
    expect(toMermaid(machine.provide({}))).toBe(text);
  });

  it('draws every state once, the initial state and the final states', () => {
    expect(diagram.states).toEqual(topLevel.map((state) => state.key));
    expect(diagram.initial).toEqual([machine.root.initial.target[0]!.key]);
    expect(diagram.finals).toEqual(topLevel.filter((state) => state.type === 'final').map((state) => state.key));
  });

  it('names every event of the machine', () => {
    const events = new Set(topLevel.flatMap((state) => [...state.transitions.keys()]));
    for (const event of machine.root.transitions.keys()) events.add(event);
    expect(events.size).toBeGreaterThan(0);
    for (const event of events) expect(diagram.edges.map((edge) => edge.event)).toContain(event);
  });

  it('draws exactly the transitions of the definition, with guards and actions by name', () => {
    const [initial] = initialTransition(machine, MODELS[name].inputs[0]) as [AnyMachineSnapshot, unknown];
    const expected = definedTransitions(machine, initial.context).flatMap(({ source, transition }) =>
      (transition.target?.length ? transition.target : [source]).map((target) =>
        key({
          source: source.key,
          target: target.key,
          // An eventless transition is drawn as `always` (machines/mermaid.ts).
          event: transition.eventType === '' ? 'always' : transition.eventType,
          guard: transition.guard === undefined ? '' : nameOf(transition.guard),
          actions: transition.actions.map(nameOf),
        }),
      ),
    );
    expect(diagram.edges.map(key).sort()).toEqual(expected.sort());
    // Targetless transitions are self-loops.
    for (const { source, transition } of definedTransitions(machine, initial.context)) {
      if (transition.target === undefined) {
        expect(
          diagram.edges.some(
            (edge) => edge.source === source.key && edge.target === source.key && edge.event === transition.eventType,
          ),
        ).toBe(true);
      }
    }
  });

  it('is read by beautiful-mermaid as the same graph', () => {
    const graph = parseMermaid(text);
    expect([...graph.nodes.keys()].filter((id) => !id.startsWith('_'))).toEqual(diagram.states);
    expect(graph.edges.length).toBe(diagram.edges.length + diagram.initial.length + diagram.finals.length);
  });
});

it('docs/machines.md shows the current diagrams', () => {
  const doc = readFileSync(new URL('../../docs/machines.md', import.meta.url), 'utf8');
  const blocks = [...doc.matchAll(/```mermaid\n([\s\S]*?)```/g)].map((match) => match[1]);
  // On failure: paste the output of `greenline charts` (the .mmd files) into docs/machines.md.
  expect(blocks).toEqual(Object.values(MACHINES).map((machine) => toMermaid(machine)));
});

it("README.md's charts are the current ones of the PR, the test run and the queue", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const blocks = [...readme.matchAll(/```mermaid\n([\s\S]*?)```/g)].map((match) => match[1]);
  // On failure: paste the output of `greenline charts` (the .mmd files) into the README's three charts.
  expect(blocks).toEqual([MACHINES.pullRequest, MACHINES.testRun, MACHINES.queue].map((machine) => toMermaid(machine)));
});

it('draws pullRequest CANCEL from every non-final state and from no final one', () => {
  const diagram = parse(toMermaid(MACHINES.pullRequest));
  const states = Object.values(MACHINES.pullRequest.root.states);
  const cancels = diagram.edges.filter((edge) => edge.event === 'CANCEL');
  expect(cancels.map((edge) => edge.source)).toEqual(states.filter((s) => s.type !== 'final').map((s) => s.key));
  expect(new Set(cancels.map((edge) => edge.target))).toEqual(new Set(['CANCELLED']));
});

describe('toMermaid on nested states', () => {
  const machine = setup({ guards: { ok: () => true, other: () => false } }).createMachine({
    id: 'nested',
    initial: 'idle',
    on: { RESET: '.idle' },
    states: {
      idle: { on: { GO: 'busy', QUIT: 'end' } },
      busy: {
        initial: 'working',
        on: { STOP: 'idle', RESET: { guard: and(['ok', not('other')]), target: 'idle' } },
        states: {
          working: { on: { DONE: 'finished', STOP: { actions: assign({}) } } },
          finished: { type: 'final' },
        },
      },
      end: { type: 'final' },
    },
  });
  const text = toMermaid(machine);

  it('draws compound states as blocks with their own initial and final states', () => {
    expect(text).toContain(
      [
        '  state busy {',
        '    [*] --> busy_working',
        '    state "working" as busy_working',
        '    state "finished" as busy_finished',
        '    busy_finished --> [*]',
        '  }',
      ].join('\n'),
    );
    expect(text).toContain('  end --> [*]\n');
  });

  it('draws a handler of a compound state from the states inside it that can take it', () => {
    const lines = text.split('\n');
    // Root-level RESET: from every state but the top-level final one; busy's guarded RESET does not shadow it.
    expect(lines.filter((l) => l.includes(': RESET') && !l.includes('['))).toEqual([
      '  idle --> idle : RESET',
      '  busy_working --> idle : RESET',
      '  busy_finished --> idle : RESET',
    ]);
    expect(lines).toContain('  busy_working --> idle : RESET [ok and not other]');
    // busy's STOP is shadowed in working by working's own unguarded STOP (a self-loop), not in finished.
    expect(lines.filter((l) => l.includes(': STOP'))).toEqual([
      '  busy_working --> busy_working : STOP / assign',
      '  busy_finished --> idle : STOP',
    ]);
    expect(lines).toContain('  idle --> busy : GO');
  });

  it('renders with beautiful-mermaid', () => {
    expect(renderMermaidSVG(text).startsWith('<svg')).toBe(true);
  });
});
