export { Interpreter, type InterpreterOptions } from './interpreter.js';
export { NOT_CONFIGURED_TEXT } from './not-configured.js';
export { resetThreadMemory, ThreadMemory } from './memory.js';
export { formatToolResult, summarizeRun } from './tool-result.js';
export type { TurnInput, TurnOptions, TurnOutcome, TurnResult, TurnRun } from './turn.js';
