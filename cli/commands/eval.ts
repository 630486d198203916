import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIo, Command } from '../args.js';
import { parse } from '../args.js';
import { loadConfig, type Config } from '../../src/config/index.js';
import { parseEndpointUrl } from '../../src/domain/endpoint-url.js';
import { createLogger } from '../../src/logger.js';
import type { Sandbox } from '../../src/ports/sandbox.js';
import { DEFAULT_INLINE_CHARS } from '../eval/no-code-mode.js';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY, readEvalOptions, type EvalOptions } from '../eval/options.js';
import { formatReport, MODE_TITLES, reportJson, type EvalContext } from '../eval/report.js';
import type { TaskRun } from '../eval/result.js';
import { runEval } from '../eval/runner.js';
import { EVAL_TASKS } from '../eval/tasks/index.js';
import { CATEGORIES, promptOf, type EvalTask } from '../eval/task.js';
import { prepareImage } from './prepare-image.js';
import { FAILURE_CLASSES, FAILURE_ORDER } from '../eval/failure.js';

const USAGE = `Usage: threadlab eval [--tasks ID,ID] [--category NAME] [--mode both|code|no-code] [--concurrency N]
                      [--timeout SECONDS] [--inline-chars N] [--json] [--list]

Runs the bundled data-analysis tasks (${EVAL_TASKS.length}: ${CATEGORIES.join(', ')}; CSV and Excel files
generated from fixed seeds, questions with exact answers) against the configured model (OPENAI_BASE_URL,
OPENAI_API_KEY, OPENAI_MODEL) and prints, per task, whether the answer was right, model rounds, tokens and
seconds, then the totals side by side:
  code      the bot's own loop: a fresh thread per task with its files uploaded, the real sandbox
  no-code   the same question with the files' contents in the message, no tools, one request
  --tasks ID,ID       only these tasks (see --list)
  --category NAME     only the tasks of these categories (comma-separated)
  --mode MODE         both (default), code or no-code
  --concurrency N     task runs at once, 1-${MAX_CONCURRENCY} (default ${DEFAULT_CONCURRENCY}); each code run holds a sandbox container
  --timeout SECONDS   limit of one task's turn (default THREADLAB_LLM_TURN_TIMEOUT_MS)
  --inline-chars N    characters of file contents inlined without code (default ${DEFAULT_INLINE_CHARS})
  --json              print the results as JSON
  --list              list the tasks and their questions, and run nothing
A task that was not right says how it failed, and the totals count each way:
${FAILURE_ORDER.map((c) => `  ${c.padEnd(13)} ${FAILURE_CLASSES[c]}`).join('\n')}
Exit status: 0 when the tasks ran (whatever the accuracy), 1 when they could not run, 2 for bad options.`;

const NO_MODEL =
  'threadlab eval needs a model: set OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (any OpenAI-compatible server, ' +
  'with OPENAI_API_KEY if it wants one), and OPENAI_MODEL to pick the model.';

async function listTasks(tasks: EvalTask[], io: CliIo): Promise<number> {
  for (const task of tasks) {
    const built = await task.build();
    const files = built.files.map((f) => f.name).join(', ');
    io.out(`${task.id} (${task.category}; ${files})\n  ${promptOf(built).replace(/\n+/g, '\n  ')}\n\n`);
  }
  return 0;
}

function progress(io: CliIo): (run: TaskRun) => void {
  return (run) =>
    io.err(
      `${run.correct ? '✔' : `✘ ${run.failure ?? run.outcome}`} ${run.taskId} (${MODE_TITLES[run.mode]}): ${run.rounds} round${run.rounds === 1 ? '' : 's'}, ${run.seconds.toFixed(1)} s\n`,
    );
}

/** Runs the tasks with the configured model, and the sandbox when the code mode is asked for. */
async function evaluate(options: EvalOptions, config: Config, io: CliIo, json: boolean): Promise<number> {
  // The composition root loads every adapter: only once there is something to run.
  const { createLlmClient, createSandbox } = await import('../../app/index.js');
  const logger = createLogger({ level: 'warn', secrets: config.secrets });
  const llm = createLlmClient(config, logger.child({ component: 'llm' }))!;
  const timeoutMs = options.timeoutMs ?? config.llm.turnTimeoutMs;
  const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-eval-'));
  const startedMs = Date.now();
  let sandbox: Sandbox | undefined;
  try {
    if (options.modes.includes('code')) {
      await prepareImage(config, io);
      sandbox = await createSandbox({ ...config, dataDir }, logger);
    }
    const code = sandbox && {
      llm,
      sandbox,
      settings: config.llm,
      sandboxTimeoutMs: config.sandbox.timeoutMs,
      timeoutMs,
      logger,
      runId: randomUUID().slice(0, 8),
    };
    const reports = await runEval(options, {
      ...(code ? { code } : {}),
      noCode: { llm, settings: config.llm, timeoutMs, inlineChars: options.inlineChars },
      onRun: progress(io),
    });
    const context: EvalContext = {
      model: llm.model,
      endpoint: parseEndpointUrl(config.llm.baseUrl ?? 'https://api.openai.com/v1').display,
      modes: options.modes,
      concurrency: options.concurrency,
      timeoutMs,
      inlineChars: options.inlineChars,
      wallSeconds: (Date.now() - startedMs) / 1000,
    };
    io.out(json ? `${JSON.stringify(reportJson(reports, context), null, 2)}\n` : formatReport(reports, context));
    const runs = reports.flatMap((r) => Object.values(r.runs));
    if (runs.every((r) => r.outcome === 'failed' || r.outcome === 'error')) {
      io.err(`No task could run: ${runs[0]?.reason ?? 'no result'}\n`);
      return 1;
    }
    return 0;
  } finally {
    await sandbox?.close().catch((err: unknown) => logger.warn({ err }, 'sandbox close failed'));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const evalCommand: Command = {
  name: 'eval',
  usage: USAGE,
  async run(argv, io) {
    const { values } = parse(
      argv,
      {
        tasks: { type: 'string', multiple: true },
        category: { type: 'string', multiple: true },
        mode: { type: 'string' },
        concurrency: { type: 'string' },
        timeout: { type: 'string' },
        'inline-chars': { type: 'string' },
        json: { type: 'boolean' },
        list: { type: 'boolean' },
      },
      'eval',
    );
    if (values.help) return (io.out(`${USAGE}\n`), 0);
    const options = readEvalOptions(values);
    if ('problems' in options) return (io.err(`${options.problems.join('\n')}\n`), 2);
    if (values.list) return listTasks(options.tasks, io);
    const config = loadConfig(io.env);
    if (!config.llm.configured) return (io.err(`${NO_MODEL}\n`), 1);
    return evaluate(options, config, io, values.json ?? false);
  },
};
