/** GREENLINE_PROVIDER=sim: a simulated git host that keeps nothing (demos, load tests), declared for the registry (../index.ts). */
import { defineHost, NOTHING_INBOUND } from '../hostPlugin.js';

export const simHostPlugin = defineHost<object>({
  name: 'sim',
  summary: 'sim (simulated)',
  environment: {},
  schema: () => ({}),
  configure: () => ({}),
  async open(_settings, context) {
    return {
      gitHost: new (await import('../../engine/providers/sim/simGitHost.js')).SimGitHost(),
      ...(context.simCi === undefined ? {} : { ci: context.simCi }),
      where: 'simulated git host',
      warnings: [],
      connect: () => NOTHING_INBOUND,
      close: async () => {},
    };
  },
});
