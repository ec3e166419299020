import { createMemoryStore } from '../../engine/store/index.js';
import { describeStoreConformance } from './store.conformance.js';

describeStoreConformance('memory', async () => {
  const store = createMemoryStore();
  return { store, cleanup: () => store.close().catch(() => undefined) };
});
