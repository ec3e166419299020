/**
 * The state charts page: the lifecycle machines (PRs, runs, queues, bisections), drawn from their definitions, with how many of the
 * organization's PRs, runs and queues are in each state now (states holding any are outlined on the chart).
 */
import type { Engine } from '../engine/engine.js';
import { MACHINES } from '../machines/index.js';
import { html, raw, type Html } from './html.js';
import { highlightCss, machineSvg, type MachineName } from './stateCharts.js';

export type StateCounts = Record<MachineName, Map<string, number>>;

export function countStates(engine: Engine, org: string): StateCounts {
  return engine.stateCounts(org);
}

const TITLES: Record<MachineName, string> = {
  pullRequest: 'Pull requests',
  testRun: 'Test runs',
  queue: 'Queues',
  bisection: 'Bisections',
};

function machineSection(name: MachineName, counts: Map<string, number>): Html {
  const states = Object.keys(MACHINES[name].root.states);
  const occupied = states.filter((state) => (counts.get(state) ?? 0) > 0);
  const scope = `chart-${name}`;
  return html`<section aria-labelledby="${scope}-title"><h2 id="${scope}-title">${TITLES[name]}</h2>
<div class="scroll" tabindex="0" role="region" aria-label="${TITLES[name]} by state"><table class="counts" data-machine="${name}"><thead><tr><th scope="col">State</th><th scope="col">Now</th></tr></thead><tbody>${states.map(
    (state) =>
      html`<tr data-state="${state}"><td><span class="state state-${state}">${state}</span></td><td>${counts.get(state) ?? 0}</td></tr>`,
  )}</tbody></table></div>
<style>${raw(occupied.map((state) => highlightCss(scope, [state], undefined)).join('\n'))}</style>
<div class="chart" id="${scope}" tabindex="0" role="region" aria-label="${TITLES[name]}: state chart">${raw(machineSvg(name))}</div></section>`;
}

export function chartsBody(engine: Engine, org: string): Html {
  const counts = countStates(engine, org);
  return html`<p class="muted">Drawn from the machines themselves, as <code>greenline charts</code> draws them; states with anything in them now are outlined.</p>
${(Object.keys(TITLES) as MachineName[]).map((name) => machineSection(name, counts[name]))}`;
}
