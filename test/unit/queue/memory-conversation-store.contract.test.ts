import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { conversationStoreContract } from '../../contract/conversation-store-contract.js';

conversationStoreContract('MemoryConversationStore', async () => {
  const store = new MemoryConversationStore();
  return { store, dispose: () => store.close() };
});
