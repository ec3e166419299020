/**
 * The models the machines are explored with: the machines' one alphabet (conformance/machineEvents.ts, which the
 * conformance suite explores too), typed for each machine.
 */
import type { bisectionMachine, pullRequestMachine, queueMachine, testRunMachine } from '../../machines/index.js';
import { MACHINE_EVENTS } from '../../conformance/machineEvents.js';
import type { MachineModel } from './graph.js';

export { DEADLINE } from '../../conformance/machineEvents.js';

export const pullRequestModel: MachineModel<typeof pullRequestMachine> = MACHINE_EVENTS.pullRequest;
export const testRunModel: MachineModel<typeof testRunMachine> = MACHINE_EVENTS.testRun;
export const queueModel: MachineModel<typeof queueMachine> = MACHINE_EVENTS.queue;
export const bisectionModel: MachineModel<typeof bisectionMachine> = MACHINE_EVENTS.bisection;

export const MODELS = {
  pullRequest: pullRequestModel,
  testRun: testRunModel,
  queue: queueModel,
  bisection: bisectionModel,
} as const;
