/**
 * Machine snapshots as the store keeps them: which machine, its version, its state value and context (JSON). The
 * engine restores an actor from these with the machine's `resolveState`, and moves it with the pure `transition`.
 */
import { createActor, initialTransition, type AnyMachineSnapshot, type AnyStateMachine } from 'xstate';
import { MACHINE_VERSION, MACHINES, type MachineName } from '../../machines/index.js';

export interface StoredSnapshot {
  machine: MachineName;
  version: number;
  value: string;
  context: unknown;
}

export type Snapshot = AnyMachineSnapshot;

export function toStored(machine: MachineName, snapshot: Snapshot): StoredSnapshot {
  return { machine, version: MACHINE_VERSION[machine], value: String(snapshot.value), context: snapshot.context };
}

/** What a migration may read besides the snapshot: the record stored beside it (a PR's, for pullRequest). */
export interface StoredRecordFacts {
  mergeRequested?: boolean;
  mergedBy?: string | null;
  bisectionId?: string | null;
  group?: string | null;
  testedBase?: readonly number[] | null;
  runsBehindEnded?: number;
  runsBehindFailed?: number;
  failureRetests?: number;
  mergeRefusals?: number;
  failedAttempts?: number;
  speculated?: boolean;
}

/** The facts version 4 moved from the record into pullRequest's context. */
const V4_FACTS = ['failureRetests', 'mergeRefusals', 'failedAttempts'] as const;

/**
 * A stored snapshot of an older machine version, brought one version forward (`fromStored` repeats it up to the
 * current one). The facts a version adds to pullRequest's context were the record's before, so they are read from
 * the record stored beside it; without one (none stored) they take the value a new entry has.
 *
 * - 1 → 2: the merge under way (context `merge`) was the record's `mergeRequested` and `mergedBy`, and membership of
 *   a bisection group (context `bisection`) its `bisectionId` and `group`; a MERGED PR keeps how it merged.
 * - 2 → 3: the base its result was tested on (`testedBase`) and the runs behind it that ended, and failed, while it
 *   waited in PENDING_FAILURE (`runsBehindEnded`, `runsBehindFailed`).
 * - 3 → 4: the rest of the failure policy's facts: anti-flake retests (`failureRetests`), the host's refusals of its
 *   merge (`mergeRefusals`), its failed attempts (`failedAttempts`) and whether speculation isolated it (`speculated`).
 */
export function migrateStored(stored: StoredSnapshot, record?: StoredRecordFacts): StoredSnapshot {
  if (stored.machine !== 'pullRequest') return stored;
  if (stored.version === 1) {
    const context = { ...(stored.context as Record<string, unknown>) };
    if (record?.mergeRequested === true || (stored.value === 'MERGED' && record !== undefined))
      context.merge = { by: record.mergedBy ?? null };
    if (typeof record?.bisectionId === 'string' && typeof record.group === 'string')
      context.bisection = { id: record.bisectionId, group: record.group };
    return { ...stored, version: 2, context };
  }
  if (stored.version === 2) {
    const context = { ...(stored.context as Record<string, unknown>) };
    if (Array.isArray(record?.testedBase)) context.testedBase = record.testedBase;
    if (record?.runsBehindEnded !== undefined && record.runsBehindEnded !== 0)
      context.runsBehindEnded = record.runsBehindEnded;
    if (record?.runsBehindFailed !== undefined) context.runsBehindFailed = record.runsBehindFailed;
    return { ...stored, version: 3, context };
  }
  if (stored.version === 3) {
    const context = { ...(stored.context as Record<string, unknown>) };
    for (const fact of V4_FACTS) if (record?.[fact] !== undefined) context[fact] = record[fact];
    if (record?.speculated === true) context.speculated = true;
    return { ...stored, version: 4, context };
  }
  return stored;
}

/**
 * A pullRequest snapshot as version 1 stored it: what event-log digests are taken of (eventLog.ts), so that logs
 * recorded before version 2 still replay. Nothing is lost: what later versions add to the context (`merge`,
 * `bisection`, `testedBase`, the counters) is also in the PR record beside it.
 */
export function storedForDigest(stored: StoredSnapshot): StoredSnapshot {
  if (stored.machine !== 'pullRequest' || stored.version === 1) return stored;
  const { number, runId, reason } = stored.context as Record<string, unknown>;
  return { ...stored, version: 1, context: { number, runId, reason } };
}

export function fromStored(machine: MachineName, original: StoredSnapshot, record?: StoredRecordFacts): Snapshot {
  if (original.machine !== machine)
    throw new Error(`stored snapshot is of machine ${original.machine}, expected ${machine}`);
  let stored = original;
  for (let next = migrateStored(stored, record); next !== stored; next = migrateStored(stored, record)) stored = next;
  if (stored.version !== MACHINE_VERSION[machine]) {
    throw new Error(
      `stored ${machine} snapshot has version ${stored.version}; this build runs version ${MACHINE_VERSION[machine]}`,
    );
  }
  const logic = MACHINES[machine] as AnyStateMachine;
  return logic.resolveState({ value: stored.value, context: stored.context as never });
}

/**
 * A machine's initial snapshot for an input. XState's `initialTransition` runs the machine's start (about 20 µs);
 * when the machine's initial state has no entry actions and its context is a function of the input alone (every
 * machine of ours), resolving that state with that context gives the same snapshot for a twentieth of the cost
 * (test/engine/actorStore.test.ts holds the two equal).
 */
export function initial(machine: MachineName, input: unknown): Snapshot {
  const logic = MACHINES[machine] as AnyStateMachine;
  const start = quickStart(logic);
  if (start !== undefined)
    return logic.resolveState({ value: start.value, context: start.context({ input }) as never });
  const [snapshot] = initialTransition(logic, input as never);
  return snapshot;
}

/** Whether `initial` can skip initialTransition for this machine. */
export function quickStartAvailable(machine: MachineName): boolean {
  return quickStart(MACHINES[machine] as AnyStateMachine) !== undefined;
}

type ContextOf = (args: { input: unknown }) => unknown;
const quickStarts = new Map<AnyStateMachine, { value: string; context: ContextOf } | null>();

function quickStart(logic: AnyStateMachine): { value: string; context: ContextOf } | undefined {
  let start = quickStarts.get(logic);
  if (start === undefined) {
    const value = logic.config.initial;
    const context = logic.config.context;
    const state = typeof value === 'string' ? logic.root.states[value] : undefined;
    const quiet =
      state !== undefined && state.type === 'atomic' && state.entry.length === 0 && logic.root.entry.length === 0;
    start =
      quiet && typeof context === 'function' && typeof value === 'string'
        ? { value, context: context as ContextOf }
        : null;
    quickStarts.set(logic, start);
  }
  return start ?? undefined;
}

/**
 * Moves a snapshot by an event; an event the state does not accept is a bug in the engine, not a no-op. The names of
 * the actions the transition takes other than `assign` (the moves it names: machines/pullRequest.ts) are pushed to
 * `moves`, in order, when it is given.
 *
 * XState's pure `transition(logic, snapshot, event)` makes a throwaway actor for every call, and making one computes
 * the machine's initial snapshot (about 20 µs, most of a step), to return the actions besides the snapshot. Our
 * machines have only `assign` actions (applied inside the transition) and named actions that do nothing, no children
 * and no system ids, so one inert scope per machine, made once, does the same: `machine.transition(snapshot, event,
 * scope)` is what `transition` calls with its throwaway scope, and the scope's executor, which XState hands every
 * action other than `assign`, collects their names instead of running them.
 */
export function step(machine: MachineName, snapshot: Snapshot, event: { type: string }, moves?: string[]): Snapshot {
  // A final snapshot takes no event, although `can` answers for root-level handlers as if it would.
  if (snapshot.status !== 'active' || !snapshot.can(event as never)) {
    throw new Error(`${machine} in state ${String(snapshot.value)} does not accept ${event.type}`);
  }
  const logic = MACHINES[machine] as AnyStateMachine;
  collecting = moves;
  try {
    return logic.transition(snapshot, event as never, scopeOf(logic) as never);
  } finally {
    collecting = undefined;
  }
}

/** Where the scope's executor puts the names of the actions of the transition under way (none: dropped). */
let collecting: string[] | undefined;

function collect(action: { type: string }): void {
  collecting?.push(action.type);
}

const scopes = new Map<AnyStateMachine, object>();

/** An inert actor scope for the machine, as XState's `transition` makes one, made once. */
function scopeOf(logic: AnyStateMachine): object {
  let scope = scopes.get(logic);
  if (scope === undefined) {
    const self = createActor(logic);
    const noop = () => {};
    scope = {
      self,
      defer: noop,
      id: '',
      logger: noop,
      sessionId: '',
      stopChild: noop,
      system: self.system,
      emit: noop,
      actionExecutor: collect,
    };
    scopes.set(logic, scope);
  }
  return scope;
}
