/**
 * Model-based testing helpers for the lifecycle machines, on `xstate/graph`:
 *
 * - `definedEdges`: every (source state, event, guard branch) edge the machine's definition declares, read from the
 *   definition itself (xstate's `getNextTransitions` on each state), never from a list kept by hand.
 * - `generatePaths`: a transition cover: the shortest path (`getShortestPaths`) to every snapshot the traversal
 *   reaches (`getAdjacencyMap`), plus that path extended by every event payload offered there.
 * - `replay` and `coverage` (test/machines/coverage.ts): each path through the pure `transition()` and a live actor
 *   side by side, and the states and edges they reached.
 */
import {
  getNextTransitions,
  initialTransition,
  pathToStateValue,
  transition,
  type AnyEventObject,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type AnyStateNode,
  type AnyTransitionDefinition,
  type EventFromLogic,
  type InputFrom,
  type SnapshotFrom,
} from 'xstate';
import {
  getAdjacencyMap,
  getShortestPaths,
  getStateNodes,
  serializeSnapshot,
  type TraversalOptions,
} from 'xstate/graph';

/** A machine with the inputs to start it from and the concrete events (payload variants) to explore it with. */
export interface MachineModel<M extends AnyStateMachine = AnyStateMachine> {
  machine: M;
  inputs: InputFrom<M>[];
  events: EventFromLogic<M>[];
  /**
   * The key of a snapshot for the traversal, when `serializeSnapshot`'s would never repeat (a counter in the
   * context): snapshots with the same key are explored once.
   */
  serialize?: (snapshot: AnyMachineSnapshot) => string;
}

export interface GeneratedPath<M extends AnyStateMachine = AnyStateMachine> {
  input: InputFrom<M>;
  events: EventFromLogic<M>[];
}

/** What the pure function and the live actor must agree on. */
export function view(snapshot: AnyMachineSnapshot): { value: unknown; context: unknown; status: string } {
  return { value: snapshot.value, context: snapshot.context, status: snapshot.status };
}

/** A top-level final state: the machine is done there and takes no event. */
function isDone(node: AnyStateNode): boolean {
  return node.type === 'final' && node.parent?.parent === undefined;
}

export function isAncestorOrSelf(ancestor: AnyStateNode, node: AnyStateNode): boolean {
  for (let n: AnyStateNode | undefined = node; n !== undefined; n = n.parent) if (n === ancestor) return true;
  return false;
}

function describeGuard(guard: unknown): string {
  if (guard === undefined) return '';
  if (typeof guard === 'string') return ` [${guard}]`;
  if (typeof guard === 'object' && guard !== null && 'type' in guard) return ` [${String(guard.type)}]`;
  return ' [inline]';
}

/**
 * One edge: the atomic state it leaves, the event, which branch of which node's handler (so two guarded branches
 * of one event are two edges), and where it goes. Readable, because a missing one is printed by a failing test.
 */
export function edgeKey(source: AnyStateNode, t: AnyTransitionDefinition): string {
  const branches = t.source.transitions.get(t.eventType) ?? [];
  const branch = branches.length > 1 ? ` #${branches.indexOf(t) + 1}/${branches.length}` : '';
  const owner = t.source === source ? '' : ` (on ${t.source.id})`;
  const targets = t.target?.length ? t.target.map((n) => n.id).join(',') : `${source.id} (self)`;
  return `${source.id} --${t.eventType}${describeGuard(t.guard)}${branch}${owner}--> ${targets}`;
}

/** The outcome of an event every handler of which is guarded, when no guard holds: nothing happens. */
export function ignoredKey(source: AnyStateNode, eventType: string): string {
  return `${source.id} --${eventType}--> (ignored: no guard held)`;
}

/** The handlers for `eventType` that `source` would consider: its own, then its ancestors'. */
export function handlersFor(source: AnyStateNode, eventType: string): AnyTransitionDefinition[] {
  const handlers: AnyTransitionDefinition[] = [];
  for (let n: AnyStateNode | undefined = source; n !== undefined; n = n.parent) {
    handlers.push(...(n.transitions.get(eventType) ?? []));
  }
  return handlers;
}

/** Every state node of the machine (compound ones too), by id. */
export function allStateIds(machine: AnyStateMachine): string[] {
  return getStateNodes(machine.root).map((node) => node.id);
}

/**
 * Every transition the definition lets a state take: for each atomic state the machine can act in (not a top-level
 * final state), each transition xstate would consider there (`getNextTransitions`: its own, then its ancestors'),
 * leaving out an ancestor's handler that a nearer node shadows with an unguarded handler for the same event. A
 * branch after an unguarded branch of the same handler stays in: it can never be taken, and the coverage test must
 * say so.
 */
export function definedTransitions(
  machine: AnyStateMachine,
  context: unknown,
): { source: AnyStateNode; transition: AnyTransitionDefinition }[] {
  const result: { source: AnyStateNode; transition: AnyTransitionDefinition }[] = [];
  for (const node of getStateNodes(machine.root)) {
    if ((node.type !== 'atomic' && node.type !== 'final') || isDone(node)) continue;
    const snapshot = machine.resolveState({ value: pathToStateValue(node.path), context });
    for (const t of getNextTransitions(snapshot)) {
      if (!isAncestorOrSelf(t.source, node)) continue;
      let shadowed = false;
      for (let n: AnyStateNode | undefined = node; n !== undefined && n !== t.source; n = n.parent) {
        if ((n.transitions.get(t.eventType) ?? []).some((own) => own.guard === undefined)) shadowed = true;
      }
      if (!shadowed) result.push({ source: node, transition: t });
    }
  }
  return result;
}

/**
 * Every edge the definition declares, as `edgeKey` writes them (see `definedTransitions`). Where every handler of
 * an event is guarded, the case where no guard holds (the event is ignored) counts as an edge too, so the
 * guard-failing payloads must be exercised as well as the guard-satisfying ones.
 */
export function definedEdges(machine: AnyStateMachine, context: unknown): Set<string> {
  const edges = new Set<string>();
  for (const { source, transition: t } of definedTransitions(machine, context)) {
    edges.add(edgeKey(source, t));
    const handlers = handlersFor(source, t.eventType);
    if (handlers.every((handler) => handler.guard !== undefined)) edges.add(ignoredKey(source, t.eventType));
  }
  return edges;
}

function traversal(model: MachineModel, input: unknown): TraversalOptions<AnyMachineSnapshot, AnyEventObject, unknown> {
  return {
    input,
    events: model.events,
    ...(model.serialize === undefined ? {} : { serializeState: model.serialize }),
    // A done actor takes no event.
    stopWhen: (snapshot) => snapshot.status !== 'active',
  };
}

/** The events of a path from `xstate/graph`, without its leading `xstate.init` step. */
function eventsOf<E extends AnyEventObject>(steps: { event: E }[]): E[] {
  return steps.map((step) => step.event).filter((event) => event.type !== 'xstate.init');
}

/**
 * A transition cover of the explored graph, per input: the shortest path to every reached snapshot, and that path
 * followed by each event offered in that snapshot (so every explored (snapshot, event) pair is the last step of
 * some path, including events that leave the snapshot unchanged).
 */
export function generatePaths<M extends AnyStateMachine>(model: MachineModel<M>): GeneratedPath<M>[] {
  const machine: AnyStateMachine = model.machine;
  const paths = new Map<string, GeneratedPath>();
  for (const input of model.inputs as unknown[]) {
    const options = traversal(model as MachineModel, input);
    const adjacency = getAdjacencyMap<AnyMachineSnapshot, AnyEventObject, unknown>(machine, options);
    const shortest = new Map<string, AnyEventObject[]>();
    const key = model.serialize ?? serializeSnapshot;
    for (const path of getShortestPaths(machine, options)) shortest.set(key(path.state), eventsOf(path.steps));
    for (const [key, { transitions }] of Object.entries(adjacency)) {
      const prefix = shortest.get(key);
      if (prefix === undefined) throw new Error(`no shortest path to ${key}`);
      const offered = Object.values(transitions) as { event: AnyEventObject }[];
      for (const events of [prefix, ...offered.map(({ event }) => [...prefix, event])]) {
        paths.set(JSON.stringify([input, events]), { input, events });
      }
    }
  }
  return ([...paths.values()] as GeneratedPath<M>[]).sort((a, b) => a.events.length - b.events.length);
}

/** The events of a shortest path (for `input`) to a snapshot in the state `stateKey` (for example `'TESTING'`). */
export function routeTo<M extends AnyStateMachine>(
  model: MachineModel<M>,
  input: InputFrom<M>,
  stateKey: string,
): EventFromLogic<M>[] {
  // A traversal of the whole graph per call: tests that ask for every state and tag ask for the same routes many times.
  const routes = ROUTES.get(model) ?? new Map<string, AnyEventObject[]>();
  ROUTES.set(model, routes);
  const key = JSON.stringify([input, stateKey]);
  let events = routes.get(key);
  if (events === undefined) {
    const machine: AnyStateMachine = model.machine;
    const [path] = getShortestPaths(machine, {
      ...traversal(model as MachineModel, input),
      toState: (snapshot) => snapshot.matches(stateKey),
    });
    if (path === undefined) throw new Error(`${machine.id}: no path to ${stateKey}`);
    events = eventsOf(path.steps);
    routes.set(key, events);
  }
  return [...events] as EventFromLogic<M>[];
}

/** The routes found so far, per model: a model's machine and events do not change during a run. */
const ROUTES = new WeakMap<object, Map<string, AnyEventObject[]>>();

/** Runs `events` through the pure `transition()` from the initial snapshot for `input`. */
export function run<M extends AnyStateMachine>(
  machine: M,
  input: InputFrom<M>,
  events: EventFromLogic<M>[],
): SnapshotFrom<M> {
  let [snapshot] = initialTransition(machine, input);
  for (const event of events) [snapshot] = transition(machine, snapshot, event);
  return snapshot;
}
