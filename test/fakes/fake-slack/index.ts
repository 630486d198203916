export { FakeSlack, type FakeSlackOptions } from './fake-slack.js';
export { FakeSocketMode, type EnvelopeType, type SocketAck } from './socket-mode.js';
export * from './payloads.js';
export * from './agent-payloads.js';
export * from './signing.js';
export type {
  FakeSlackCall,
  FakeSlackFile,
  FakeSlackMessage,
  FakeSlackStream,
  FakeSlackUpload,
  ScriptedFailure,
} from './state.js';
