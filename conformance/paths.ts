/**
 * Paths through the lifecycle machines, from `xstate/graph`: the shortest path to every snapshot reached with a
 * model's events (`getShortestPaths`), and each of those extended by every event offered there (`getAdjacencyMap`),
 * so every (state, event) pair the alphabet reaches is the last step of some path.
 *
 * A model may name follow-ups: the events the engine sends on its own after one a client causes (a failure is
 * followed by a kick when nothing waits behind it). The traversal then walks the machine through each event and its
 * follow-ups (a logic made with `fromTransition` around the machine's own `transition`), so every path is one the
 * API can drive. Edges are named by state values (`TESTING --PASS--> TESTS_PASSED`): what a client can observe.
 */
import {
  fromTransition,
  initialTransition,
  transition,
  type AnyEventObject,
  type AnyMachineSnapshot,
  type AnyStateMachine,
} from 'xstate';
import { getAdjacencyMap, getShortestPaths, serializeSnapshot, type TraversalOptions } from 'xstate/graph';

export interface MachineAlphabet {
  machine: AnyStateMachine;
  inputs: unknown[];
  events: AnyEventObject[];
  /** The key of a snapshot for the traversal, when `serializeSnapshot`'s would never repeat. */
  serialize?: (snapshot: AnyMachineSnapshot) => string;
  /** Whether a client can cause `event` in `state` (`snapshot`: with its context; absent: whenever it is taken). */
  causes?: (state: string, event: AnyEventObject, snapshot: AnyMachineSnapshot) => boolean;
  /** How an edge names its event (absent: its type), e.g. with the status a STATUS reports. */
  label?: (event: AnyEventObject, input: unknown) => string;
  /** What the engine sends next on its own after `event` in `state`, which led to `next` (absent: nothing). */
  followUps?: (state: string, event: AnyEventObject, next: AnyMachineSnapshot) => AnyEventObject[];
}

export interface MachinePath {
  input: unknown;
  events: AnyEventObject[];
}

/** What a client sees of a snapshot: its state value as a string. */
export function stateOf(snapshot: AnyMachineSnapshot): string {
  return typeof snapshot.value === 'string' ? snapshot.value : JSON.stringify(snapshot.value);
}

export function edgeName(source: string, event: AnyEventObject | string, target: string): string {
  return `${source} --${typeof event === 'string' ? event : event.type}--> ${target}`;
}

/** Whether `event` in `snapshot` is taken by some transition (a guard-ignored event is not). */
export function takes(snapshot: AnyMachineSnapshot, event: AnyEventObject): boolean {
  return snapshot.status === 'active' && snapshot.can(event);
}

/** One step a client causes: the event, then the engine's follow-ups; the snapshot after and the edges taken. */
export function step(
  alphabet: MachineAlphabet,
  snapshot: AnyMachineSnapshot,
  event: AnyEventObject,
  input?: unknown,
): { next: AnyMachineSnapshot; edges: string[]; events: AnyEventObject[] } {
  if (!takes(snapshot, event) || alphabet.causes?.(stateOf(snapshot), event, snapshot) === false)
    return { next: snapshot, edges: [], events: [] };
  const [after] = transition(alphabet.machine, snapshot, event) as [AnyMachineSnapshot, unknown];
  const events = [event, ...(alphabet.followUps?.(stateOf(snapshot), event, after) ?? [])];
  const edges: string[] = [];
  let current = snapshot;
  for (const each of events) {
    if (!takes(current, each)) break;
    const [next] = transition(alphabet.machine, current, each) as [AnyMachineSnapshot, unknown];
    edges.push(edgeName(stateOf(current), alphabet.label?.(each, input) ?? each.type, stateOf(next)));
    current = next;
  }
  return { next: current, edges, events };
}

type Stepped = ReturnType<typeof logicOf>;

/** The machine driven by a client: each event with its follow-ups, as an actor logic `xstate/graph` can traverse. */
function logicOf(alphabet: MachineAlphabet, input: unknown) {
  const [initial] = initialTransition(alphabet.machine, input) as [AnyMachineSnapshot, unknown];
  return fromTransition(
    (snapshot: AnyMachineSnapshot, event: AnyEventObject) => step(alphabet, snapshot, event, input).next,
    initial,
  );
}

function options(
  alphabet: MachineAlphabet,
): TraversalOptions<ReturnType<Stepped['getInitialSnapshot']>, AnyEventObject, unknown> {
  const key = alphabet.serialize ?? serializeSnapshot;
  return {
    events: alphabet.events,
    serializeState: (snapshot) => key(snapshot.context),
    stopWhen: (snapshot) => snapshot.context.status !== 'active',
  };
}

/** Every state and every edge the alphabet reaches in the machine. */
export function machineGraph(alphabet: MachineAlphabet): { states: Set<string>; edges: Set<string> } {
  const states = new Set<string>();
  const edges = new Set<string>();
  for (const input of alphabet.inputs) {
    const adjacency = getAdjacencyMap(logicOf(alphabet, input), options(alphabet));
    for (const { state } of Object.values(adjacency)) {
      states.add(stateOf(state.context));
      for (const event of alphabet.events)
        for (const edge of step(alphabet, state.context, event, input).edges) edges.add(edge);
    }
  }
  return { states, edges };
}

/** A transition cover: shortest paths to every reached snapshot, and each extended by every event offered there. */
export function generatePaths(alphabet: MachineAlphabet): MachinePath[] {
  const paths = new Map<string, MachinePath>();
  for (const input of alphabet.inputs) {
    const logic = logicOf(alphabet, input);
    const traversal = options(alphabet);
    const shortest = new Map<string, AnyEventObject[]>();
    for (const path of getShortestPaths(logic, traversal)) {
      shortest.set(
        traversal.serializeState!(path.state, undefined, undefined),
        path.steps.map((each) => each.event).filter((event) => event.type !== 'xstate.init'),
      );
    }
    for (const [id, { state }] of Object.entries(getAdjacencyMap(logic, traversal))) {
      const prefix = shortest.get(id) ?? [];
      const offered = alphabet.events.filter((event) => step(alphabet, state.context, event, input).edges.length > 0);
      for (const events of [prefix, ...offered.map((event) => [...prefix, event])])
        paths.set(JSON.stringify([input, events]), { input, events });
    }
  }
  return [...paths.values()].sort((a, b) => a.events.length - b.events.length);
}

/** The machine's snapshots along a path, each step with its follow-ups (index 0: the initial one). */
export function walk(
  alphabet: MachineAlphabet,
  path: MachinePath,
): { snapshots: AnyMachineSnapshot[]; edges: string[][] } {
  let [snapshot] = initialTransition(alphabet.machine, path.input) as [AnyMachineSnapshot, unknown];
  const snapshots = [snapshot];
  const edges: string[][] = [];
  for (const event of path.events) {
    const stepped = step(alphabet, snapshot, event, path.input);
    snapshot = stepped.next;
    snapshots.push(snapshot);
    edges.push(stepped.edges);
  }
  return { snapshots, edges };
}

/**
 * A smaller cover: paths in order of length, each kept only if it takes an edge no kept path takes (every edge of
 * the full cover stays covered). `all`: every path of the cover (the CLI's --all-paths).
 */
export function selectPaths(alphabet: MachineAlphabet, paths: readonly MachinePath[], all = false): MachinePath[] {
  if (all) return [...paths];
  const covered = new Set<string>();
  const kept: MachinePath[] = [];
  for (const path of paths) {
    const edges = walk(alphabet, path).edges.flat();
    if (edges.some((edge) => !covered.has(edge))) {
      kept.push(path);
      for (const edge of edges) covered.add(edge);
    }
  }
  return kept;
}
