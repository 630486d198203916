import { resolve } from 'node:path';
import { z } from 'zod';
import { bool, int, mib, v } from './fields.js';

/**
 * Recording of model exchanges (issue 37, "record and replay"): the variables of the `llm` section that say
 * whether each turn's requests and raw responses are written to a directory, whether file contents stay in
 * them, and how large one turn's file may grow. Off unless THREADLAB_LLM_RECORD names a directory.
 */
export const llmRecordFields = {
  /** Directory of the recordings (resolved against the working directory); unset: nothing is recorded. */
  recordDir: v('THREADLAB_LLM_RECORD', z.string().min(1).optional(), (dir) => (dir ? resolve(dir) : undefined)),
  /** Keep the contents of files that reach the prompt (previews of uploaded data, images); off: left out. */
  recordFiles: v('THREADLAB_LLM_RECORD_FILES', bool.default(false)),
  /** Most bytes of one turn's recording; past it a truncation line ends the file. */
  recordMaxBytes: v('THREADLAB_LLM_RECORD_MAX_MB', int(1, 256).default(16), mib),
};
