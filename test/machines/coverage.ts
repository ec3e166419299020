/**
 * Replaying the generated paths of a lifecycle machine (test/machines/graph.ts) and what they cover:
 * - `replay`: drives one path through the pure `transition()` and through a live `createActor` side by side, checks
 *   they agree at every step, and reports the edges the live actor actually took (from its inspection events);
 * - `coverage`: every generated path replayed, with the edges the definition declares, those taken and the states
 *   reached.
 */
import {
  createActor,
  initialTransition,
  transition,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type AnyTransitionDefinition,
  type EventFromLogic,
  type InputFrom,
  type SnapshotFrom,
} from 'xstate';
import {
  definedEdges,
  edgeKey,
  type GeneratedPath,
  generatePaths,
  handlersFor,
  ignoredKey,
  isAncestorOrSelf,
  type MachineModel,
  view,
} from './graph.js';

export interface Replay {
  /** The snapshot after every event, from the pure function (index 0: the initial snapshot). */
  snapshots: AnyMachineSnapshot[];
  /** The edges the live actor took, as `edgeKey` (or `ignoredKey`) writes them. */
  edges: string[];
}

/**
 * Runs `events` through `transition()` and through a live actor, throwing at the first step where they disagree
 * (value, context or status).
 */
export function replay<M extends AnyStateMachine>(
  machine: M,
  input: InputFrom<M>,
  events: EventFromLogic<M>[],
): Replay {
  let taken: AnyTransitionDefinition[][] = [];
  const actor = createActor(machine, {
    input,
    inspect: (inspection) => {
      if (inspection.type === '@xstate.microstep') taken.push(inspection._transitions);
    },
  });
  actor.start();
  let [pure] = initialTransition(machine, input) as [AnyMachineSnapshot, unknown];
  const snapshots: AnyMachineSnapshot[] = [pure];
  const edges: string[] = [];
  const disagree = (step: number, live: AnyMachineSnapshot): void => {
    if (JSON.stringify(view(live)) !== JSON.stringify(view(pure))) {
      throw new Error(
        `pure transition() and live actor disagree after ${JSON.stringify(events.slice(0, step))}:\n` +
          `  pure: ${JSON.stringify(view(pure))}\n  live: ${JSON.stringify(view(live))}`,
      );
    }
  };
  disagree(0, actor.getSnapshot() as AnyMachineSnapshot);
  events.forEach((event, index) => {
    const before = actor.getSnapshot() as AnyMachineSnapshot;
    taken = [];
    [pure] = transition(machine, pure as SnapshotFrom<M>, event) as [AnyMachineSnapshot, unknown];
    actor.send(event);
    disagree(index + 1, actor.getSnapshot() as AnyMachineSnapshot);
    snapshots.push(pure);
    for (const source of before._nodes) {
      if (source.type !== 'atomic' && source.type !== 'final') continue;
      const mine = taken.flat().filter((t) => isAncestorOrSelf(t.source, source));
      for (const t of mine) edges.push(edgeKey(source, t));
      if (mine.length === 0 && before.status === 'active' && handlersFor(source, event.type).length > 0) {
        edges.push(ignoredKey(source, event.type));
      }
    }
  });
  actor.stop();
  return { snapshots, edges };
}

export interface Coverage {
  paths: GeneratedPath[];
  /** Edges the definition declares (`definedEdges`, over every input). */
  defined: Set<string>;
  /** Edges the live actor took along the generated paths. */
  taken: Set<string>;
  /** Ids of the state nodes active at some step of some path. */
  reached: Set<string>;
}

/** Generates the paths of `model`, replays each (throwing where pure and live disagree) and collects coverage. */
export function coverage(model: MachineModel): Coverage {
  const { machine } = model;
  const result: Coverage = { paths: generatePaths(model), defined: new Set(), taken: new Set(), reached: new Set() };
  for (const input of model.inputs) {
    const [initial] = initialTransition(machine, input) as [AnyMachineSnapshot, unknown];
    for (const edge of definedEdges(machine, initial.context)) result.defined.add(edge);
  }
  for (const path of result.paths) {
    const { snapshots, edges } = replay(machine, path.input, path.events);
    for (const snapshot of snapshots) for (const node of snapshot._nodes) result.reached.add(node.id);
    for (const edge of edges) result.taken.add(edge);
  }
  return result;
}
