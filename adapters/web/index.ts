export { WebChatAdapter, type WebChatAdapterOptions } from './web-chat-adapter.js';
export type { WebAttachment, WebFile, WebImage, WebMessage, WebThread } from './types.js';
