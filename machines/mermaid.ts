/**
 * Draws a machine as a Mermaid `stateDiagram-v2`, from the machine's own definition: its state nodes, their `on`
 * transitions (targets, guards by name, actions by name), initial states and final states. `greenline charts` and
 * docs/machines.md are made with it.
 *
 * - An edge is labelled `EVENT [guard] / action, action`.
 * - A transition without a target (actions only) is a self-loop.
 * - A transition defined on a compound state (for example pullRequest's root-level CANCEL) is drawn from each
 *   state inside it that can still take it: every atomic descendant, except the top-level final states (the
 *   machine is done there) and the states that handle the same event themselves without a guard (they shadow it).
 * - A top-level final state gets `--> [*]`.
 *
 * The output depends only on the machine's definition, in document order: the same machine gives the same text.
 */
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate';

export function toMermaid(machine: AnyStateMachine): string {
  const lines = ['stateDiagram-v2'];
  declareChildren(machine.root, lines, '  ');
  for (const state of atomicDescendants(machine.root)) {
    if (isDone(state)) continue;
    for (const transition of transitionsFrom(state)) {
      const targets = transition.target?.length ? transition.target : [state];
      for (const target of targets) {
        lines.push(`  ${stateId(state)} --> ${targetId(target)} : ${edgeLabel(transition)}`);
      }
    }
  }
  for (const state of Object.values(machine.root.states)) {
    if (state.type === 'final') lines.push(`  ${stateId(state)} --> [*]`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The initial pseudo-state, then one `state "key" as id` line per child, so that every state is drawn (even one no
 * edge touches) and in document order; compound children become `state id { ... }` blocks.
 */
function declareChildren(parent: AnyStateNode, lines: string[], indent: string): void {
  const initial = parent.type === 'compound' ? parent.initial.target[0] : undefined;
  if (initial !== undefined) lines.push(`${indent}[*] --> ${stateId(initial)}`);
  for (const child of Object.values(parent.states)) {
    if (child.type === 'compound' || child.type === 'parallel') {
      lines.push(`${indent}state ${stateId(child)} {`);
      declareChildren(child, lines, `${indent}  `);
      lines.push(`${indent}}`);
    } else {
      lines.push(`${indent}state "${child.key}" as ${stateId(child)}`);
      // Nested final states end their parent; the top-level ones are drawn with the edges.
      if (child.type === 'final' && parent.parent !== undefined) lines.push(`${indent}${stateId(child)} --> [*]`);
    }
  }
}

/** Every atomic and final state node under `node`, in document order. */
function atomicDescendants(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states).flatMap((child) =>
    child.type === 'atomic' || child.type === 'final' ? [child] : atomicDescendants(child),
  );
}

/** A top-level final state: the machine is done and takes no more events. */
function isDone(state: AnyStateNode): boolean {
  return state.type === 'final' && state.parent?.parent === undefined;
}

/**
 * The transitions `state` may take, in the order the machine considers them: its own, then each ancestor's,
 * leaving out an ancestor's handler for an event that a nearer node already handles without a guard.
 */
function transitionsFrom(state: AnyStateNode): AnyTransitionDefinition[] {
  const result: AnyTransitionDefinition[] = [];
  const settled = new Set<string>();
  for (let node: AnyStateNode | undefined = state; node !== undefined; node = node.parent) {
    for (const [eventType, transitions] of node.transitions) {
      if (settled.has(eventType)) continue;
      result.push(...transitions);
    }
    for (const [eventType, transitions] of node.transitions) {
      if (transitions.some((transition) => transition.guard === undefined)) settled.add(eventType);
    }
    result.push(...(node.always ?? []));
  }
  return result;
}

function stateId(node: AnyStateNode): string {
  return node.path.join('_').replace(/[^\w]/g, '_');
}

/** A compound target is drawn as its block; the root (re-entering the machine) as its initial state. */
function targetId(node: AnyStateNode): string {
  return node.parent === undefined && node.initial.target[0] !== undefined
    ? stateId(node.initial.target[0])
    : stateId(node);
}

function edgeLabel(transition: AnyTransitionDefinition): string {
  let label = transition.eventType === '' ? 'always' : transition.eventType;
  if (transition.guard !== undefined) label += ` [${guardName(transition.guard)}]`;
  const actions = transition.actions.map(actionName);
  if (actions.length > 0) label += ` / ${actions.join(', ')}`;
  return label;
}

interface NamedFunction {
  name: string;
  type?: unknown;
  guards?: unknown[];
  stateValue?: unknown;
}

function guardName(guard: unknown): string {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    const fn = guard as NamedFunction;
    if (Array.isArray(fn.guards)) {
      const names = fn.guards.map(guardName);
      if (fn.name === 'not') return `not ${names[0] ?? ''}`;
      return names.join(fn.name === 'and' ? ' and ' : ' or ');
    }
    if (fn.stateValue !== undefined) return `in ${plain(fn.stateValue)}`;
    return fn.name || 'inline';
  }
  if (typeof guard === 'object' && guard !== null && 'type' in guard) return withParams(String(guard.type), guard);
  return 'guard';
}

function actionName(action: unknown): string {
  if (typeof action === 'string') return action;
  if (typeof action === 'function') {
    const fn = action as NamedFunction;
    if (typeof fn.type === 'string' && fn.type.startsWith('xstate.')) return fn.type.slice('xstate.'.length);
    return fn.name || 'inline';
  }
  if (typeof action === 'object' && action !== null && 'type' in action) return withParams(String(action.type), action);
  return 'action';
}

/** `name(key=value, ...)` for static params of plain values; the bare name otherwise. */
function withParams(name: string, object: object): string {
  const params = 'params' in object ? object.params : undefined;
  if (typeof params !== 'object' || params === null) return name;
  const entries = Object.entries(params).filter(([, value]) => ['string', 'number', 'boolean'].includes(typeof value));
  return entries.length === 0
    ? name
    : `${name}(${entries.map(([key, value]) => `${key}=${String(value)}`).join(', ')})`;
}

function plain(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
