import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from '../args.js';
import { parse } from '../args.js';
import { loadConfig } from '../../src/config/index.js';
import { LANGUAGES, languageFromLabel, type ExecutionResult } from '../../src/domain/execution.js';
import { callDaemon } from '../daemon/client.js';
import { configFingerprint } from '../daemon/fingerprint.js';
import { DAEMON_LIMITS } from '../daemon/protocol.js';
import { describeRefused } from './out-report.js';
import { prepareImage } from './prepare-image.js';
import { stateNotSavedText, stateRestoredText } from '../../src/domain/state-notice.js';
import { isInstalledPackageFile } from '../../src/domain/file-names.js';

/** Reads the code, refusing more than the daemon takes in one call. */
async function readSource(file: string): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of file === '-' ? process.stdin : createReadStream(file)) {
    bytes += (chunk as Buffer).length;
    if (bytes > MAX_CODE_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Leaves room for the JSON around the code (escaping may grow it) within the daemon's limit. */
const MAX_CODE_BYTES = DAEMON_LIMITS.maxJsonBytes / 2;

export function summariseResult(result: ExecutionResult): string {
  const lines: string[] = [];
  if (result.error) lines.push(result.error.traceback || `${result.error.name}: ${result.error.value}`);
  for (const display of result.displays) {
    if (display.data['text/plain'] && !display.data['image/png']) lines.push(display.data['text/plain']);
    else if (display.data['image/png']) lines.push(`[image${display.meta?.title ? `: ${display.meta.title}` : ''}]`);
  }
  const packageFiles = result.artifacts.filter((a) => isInstalledPackageFile(a.path)).length;
  for (const artifact of result.artifacts) {
    if (!isInstalledPackageFile(artifact.path))
      lines.push(`[${artifact.change} ${artifact.path}, ${artifact.bytes} bytes]`);
  }
  if (packageFiles > 0) lines.push(`[installed packages: ${packageFiles} files under .local]`);
  if (result.truncated)
    lines.push(
      `[output truncated: ${result.truncated.stdoutBytes + result.truncated.stderrBytes} bytes elided${result.truncated.fullOutputPath ? `; full output in ${result.truncated.fullOutputPath}` : ''}]`,
    );
  if (result.stateReset) lines.push(`[variables were reset: ${result.stateReset.reason}]`);
  if (result.stateRestored) lines.push(`[${stateRestoredText(result.stateRestored)}]`);
  if (result.stateNotSaved) lines.push(`[${stateNotSavedText(result.stateNotSaved)}]`);
  lines.push(`[${result.status} in ${result.durationMs} ms, run ${result.executionCount}]`);
  return `${lines.join('\n')}\n`;
}

export const execCommand: Command = {
  name: 'exec',
  usage: `Usage: threadlab exec [--session KEY] [--lang python|bash|r|javascript] [--timeout MS] [--out DIR [--overwrite]] [--json] FILE|-

Runs FILE (or stdin with -) in a sandbox. Output streams as it comes.
  --session KEY   a named session: consecutive calls share variables and files while it lives
                  (held by a background daemon; see \`threadlab daemon --help\`)
  --lang LANG     python (default), bash, r or javascript (also js); R and JavaScript keep their
                  own variables in a --session, like Python
  --timeout MS    wall-clock limit of this run (default THREADLAB_SANDBOX_TIMEOUT_MS)
  --out DIR       write the files the run created or changed, and displayed images, under DIR;
                  names with a dot component or "..", and links already in DIR, are refused
  --overwrite     with --out: replace existing files (refused otherwise)
  --json          print exactly the result object as one JSON document (no streaming); with --out
                  it also has "out": { written, refused: [{ name, reason }] }
Exit status: 0 when the run's status is ok and every file was written, 1 otherwise.`,
  async run(argv, io) {
    const { values, positionals } = parse(
      argv,
      {
        session: { type: 'string' },
        lang: { type: 'string' },
        timeout: { type: 'string' },
        out: { type: 'string' },
        overwrite: { type: 'boolean' },
        json: { type: 'boolean' },
      },
      'exec',
    );
    if (values.help) return (io.out(`${this.usage}\n`), 0);
    if (positionals.length !== 1) {
      io.err('exec needs exactly one FILE (or - for stdin). Run `threadlab exec --help`.\n');
      return 2;
    }
    const language = values.lang === '' ? undefined : languageFromLabel(values.lang ?? 'python');
    if (!language) {
      io.err(`--lang: expected ${LANGUAGES.join(', ')} (got "${values.lang}")\n`);
      return 2;
    }
    const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
    if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs < 100)) {
      io.err(`--timeout: expected milliseconds, at least 100 (got "${values.timeout}")\n`);
      return 2;
    }
    if (values.overwrite && !values.out) {
      io.err('--overwrite: only meaningful with --out DIR\n');
      return 2;
    }
    const code = await readSource(positionals[0]!);
    if (code === undefined) {
      io.err(`${positionals[0]}: the code is over the limit of ${MAX_CODE_BYTES} bytes per run\n`);
      return 2;
    }
    const config = loadConfig(io.env);
    await prepareImage(config, io);
    const body = Buffer.from(
      JSON.stringify({
        language,
        code,
        ...(values.session ? { session: values.session } : {}),
        ...(timeoutMs ? { timeoutMs } : {}),
        ...(values.out ? { outDir: resolve(values.out), overwrite: values.overwrite ?? false } : {}),
      }),
    );
    const target = { dataDir: config.dataDir, env: io.env, config: configFingerprint(config), notice: io.err };
    for await (const frame of callDaemon(target, '/exec', () => body)) {
      if (frame.type === 'stdout' && !values.json) io.out(frame.text);
      else if (frame.type === 'stderr' && !values.json) io.err(frame.text);
      else if (frame.type === 'failure') {
        io.err(`${frame.message}\n`);
        return 1;
      } else if (frame.type === 'exec_result') {
        const out = frame.out ?? { written: [], refused: [] };
        const printed = frame.out ? { ...frame.result, out: frame.out } : frame.result;
        if (values.json) io.out(`${JSON.stringify(printed, null, 2)}\n`);
        else io.err(summariseResult(frame.result));
        io.err(describeRefused(out));
        return frame.result.status === 'ok' && out.refused.length === 0 ? 0 : 1;
      }
    }
    io.err('The daemon closed the connection without a result; see its log.\n');
    return 1;
  },
};
