export { SlackAdapter, type SlackAdapterOptions } from './slack-adapter.js';
export { mapMessageEvent, mapFile } from './map-event.js';
export { parseCommandText, mapSlashCommand } from './map-command.js';
export { planReply } from './reply-blocks.js';
export { STOP_ACTION_ID } from './progress-view.js';
