import { MemorySessionStore } from '../../../src/sessions/memory-session-store.js';
import { sessionStoreContract } from '../../contract/session-store-contract.js';

sessionStoreContract('MemorySessionStore', async () => {
  const store = new MemorySessionStore();
  return { store, dispose: () => store.close() };
});
