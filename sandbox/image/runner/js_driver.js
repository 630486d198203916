'use strict';
// CommonJS for Debian's node inside the sandbox (internal/repl/await is reachable only through require).
/* global require, process, __filename, Buffer */
/* eslint-disable @typescript-eslint/no-require-imports */
// Threadlab's JavaScript session: a long-lived Node process (uid 1000, started by the supervisor through
// language_session.py) that runs each cell in its own global context, like Python's kernel.py.
//
// Top-level bindings (var, let, const, function, class) persist between runs, as in Node's REPL, and a cell
// may `await` at top level (the REPL's own rewrite, internal/repl/await, which needs --expose-internals).
// The last expression's value is shown with util.inspect. Commands come in one JSON object a line on the
// commands pipe, frames go out on the frames pipe (THREADLAB_KERNEL_FDS); stdout and stderr are the pipes the
// supervisor reads as the run's output. The user's code can reach both pipes: every frame is a claim the
// supervisor checks (kernel_link.py). A SIGINT stops the run: synchronous code through vm's breakOnSigint,
// a pending await by giving up on it. Code that loops in a callback after an await cannot be interrupted;
// the supervisor then kills and restarts the session and says so.
const fs = require('node:fs');
const readline = require('node:readline');
const util = require('node:util');
const vm = require('node:vm');
const { createRequire } = require('node:module');
const { processTopLevelAwait } = require('internal/repl/await');

const [COMMANDS_FD, FRAMES_FD] = String(process.env.THREADLAB_KERNEL_FDS).split(',').map(Number);
delete process.env.THREADLAB_KERNEL_FDS;
const TEXT_CAP = 256 * 1024;
const DRIVER = __filename;

function send(frame) {
  const data = Buffer.from(JSON.stringify(frame) + '\n');
  for (let off = 0; off < data.length;) off += fs.writeSync(FRAMES_FD, data, off);
}

function clip(text) {
  if (text.length <= TEXT_CAP) return text;
  const half = TEXT_CAP / 2;
  return `${text.slice(0, half)}\n[... ${text.length - TEXT_CAP} characters elided ...]\n${text.slice(-half)}`;
}

function asError(thrown) {
  if (thrown instanceof Error || (thrown && typeof thrown === 'object' && 'stack' in thrown)) {
    // The driver's and vm's own frames say nothing about the user's code.
    const stack = String(thrown.stack ?? '')
      .split('\n')
      .filter((line) => !line.includes(DRIVER) && !/\(node:(vm|internal)|at node:(vm|internal)/.test(line))
      .join('\n');
    return { name: String(thrown.name ?? 'Error'), value: String(thrown.message ?? ''), traceback: stack };
  }
  return { name: 'Uncaught', value: util.inspect(thrown), traceback: `Uncaught ${util.inspect(thrown)}` };
}

// The user's globals: require and friends resolve from /mnt/data, as a script there would.
globalThis.require = createRequire('/mnt/data/cell.js');
globalThis.__dirname = '/mnt/data';
globalThis.__filename = '/mnt/data/cell.js';

let current = null; // { id, stop } while a run is in progress
process.on('SIGINT', () => current?.stop());
// A callback of the user's that throws between runs must not end the session: it is printed (and the
// supervisor discards what is printed between runs, saying how many bytes).
process.on('uncaughtException', (err) => process.stderr.write(`Uncaught ${asError(err).traceback}\n`));
process.on('unhandledRejection', (err) => process.stderr.write(`Unhandled rejection: ${asError(err).traceback}\n`));

async function evaluate(code, filename, stopped) {
  const rewritten = code.includes('await') ? processTopLevelAwait(code) : null;
  if (rewritten === null) return vm.runInThisContext(code, { filename, breakOnSigint: true });
  const completion = vm.runInThisContext(rewritten, { filename, breakOnSigint: true });
  const settled = await Promise.race([completion, stopped]);
  return settled?.value;
}

async function run(command) {
  const id = command.id;
  let stop;
  const stopped = new Promise((_, reject) => {
    stop = () => reject(Object.assign(new Error('the run was interrupted'), { name: 'KeyboardInterrupt', stack: '' }));
  });
  stopped.catch(() => undefined);
  current = { id, stop };
  let error;
  send({ type: 'started', id });
  try {
    const value = await evaluate(String(command.code), `<cell-${Number(command.count) || 0}>`, stopped);
    if (value !== undefined) send({ type: 'display', id, data: { 'text/plain': clip(util.inspect(value)) } });
  } catch (thrown) {
    error =
      thrown?.code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED'
        ? { name: 'KeyboardInterrupt', value: 'the run was interrupted', traceback: '' }
        : asError(thrown);
  } finally {
    current = null;
  }
  send(error ? { type: 'done', id, error } : { type: 'done', id });
}

function serve() {
  const lines = readline.createInterface({ input: fs.createReadStream(null, { fd: COMMANDS_FD }) });
  let queue = Promise.resolve();
  lines.on('line', (line) => {
    let command;
    try {
      command = JSON.parse(line);
    } catch {
      return;
    }
    if (command && command.op === 'run' && typeof command.code === 'string') {
      queue = queue.then(() => run(command)).catch((err) => process.stderr.write(`threadlab: ${err}\n`));
    }
  });
  lines.on('close', () => queue.then(() => process.exit(0)));
  send({ type: 'ready', pid: process.pid });
}

serve();
