import { open } from 'node:fs/promises';
import {
  exchangeLineSchema,
  headerLineSchema,
  MAX_EXCHANGES,
  MAX_LINE_CHARS,
  RECORDING_TYPE,
  RECORDING_VERSION,
  type HeaderLine,
  type NetworkErrorLine,
  type RequestLine,
  type ResponseLine,
  type TruncatedLine,
} from '../../adapters/openai/recording-format.js';

/** One HTTP exchange of a recording: the request and what answered it (nothing when the recording stopped first). */
export interface RecordedExchange {
  request: RequestLine;
  answer?: ResponseLine | NetworkErrorLine;
}

/** A recording as read back: its header, its exchanges in order, and its truncation line if it was cut. */
export interface Recording {
  header: HeaderLine;
  exchanges: RecordedExchange[];
  truncated?: TruncatedLine;
}

/** Largest recording file read, in bytes: the writer's cap (256 MB at most) and room for its last line. */
export const MAX_RECORDING_BYTES = 260 * 1024 * 1024;

const NOT_A_RECORDING =
  'is not a Threadlab recording: its first line is not a recording header (THREADLAB_LLM_RECORD=DIR writes recordings, one file per turn).';

function issueText(error: { issues: Array<{ path: PropertyKey[]; message: string }> }): string {
  const issue = error.issues[0];
  if (!issue) return 'not a valid line';
  const where = issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
  return `${where}${issue.message}`;
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

/** Checks the header line; a problem, or the header. */
function readHeader(first: string, name: string): HeaderLine | string {
  const json = parseJson(first) as { type?: unknown; version?: unknown } | undefined;
  if (!json || typeof json !== 'object' || json.type !== RECORDING_TYPE) return `${name} ${NOT_A_RECORDING}`;
  if (json.version !== RECORDING_VERSION)
    return `${name} is a recording of version ${JSON.stringify(json.version)}; this threadlab reads version ${RECORDING_VERSION}.`;
  const header = headerLineSchema.safeParse(json);
  return header.success ? header.data : `${name}, line 1 (the header): ${issueText(header.error)}`;
}

/** Parses the text of a recording; every line is checked (the file comes from someone else). */
export function parseRecording(text: string, name: string): Recording | { problem: string } {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0)
    return { problem: `${name} is empty, so it is not a Threadlab recording (THREADLAB_LLM_RECORD=DIR writes them).` };
  if (lines.length > 2 * MAX_EXCHANGES + 2)
    return { problem: `${name} has ${lines.length} lines; a recording holds at most ${MAX_EXCHANGES} exchanges.` };
  const long = lines.findIndex((l) => l.length > MAX_LINE_CHARS);
  if (long >= 0) return { problem: `${name}, line ${long + 1}: longer than ${MAX_LINE_CHARS} characters.` };
  const header = readHeader(lines[0]!, name);
  if (typeof header === 'string') return { problem: header };
  const recording: Recording = { header, exchanges: [] };
  for (const [i, raw] of lines.slice(1).entries()) {
    const at = `${name}, line ${i + 2}`;
    if (recording.truncated) return { problem: `${at}: a line after the truncation line.` };
    const json = parseJson(raw);
    if (json === undefined) return { problem: `${at}: not JSON.` };
    const parsed = exchangeLineSchema.safeParse(json);
    if (!parsed.success) return { problem: `${at}: ${issueText(parsed.error)}` };
    const line = parsed.data;
    if (line.type === 'truncated') recording.truncated = line;
    else if (line.type === 'request') {
      if (line.seq !== recording.exchanges.length + 1)
        return { problem: `${at}: request ${line.seq} where request ${recording.exchanges.length + 1} was due.` };
      recording.exchanges.push({ request: line });
    } else {
      const exchange = recording.exchanges[line.seq - 1];
      if (!exchange || exchange.answer)
        return { problem: `${at}: an answer to request ${line.seq}, which has none pending.` };
      exchange.answer = line;
    }
  }
  if (recording.exchanges.length === 0) return { problem: `${name} holds no model request.` };
  return recording;
}

/** Reads and checks the recording at `path`: a problem to show (exit status 2), or the recording. */
export async function readRecording(path: string): Promise<Recording | { problem: string }> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    return { problem: `${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.` };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { problem: `${path} is not a file.` };
    if (stat.size > MAX_RECORDING_BYTES)
      return {
        problem: `${path} has ${stat.size} bytes; a recording has at most ${MAX_RECORDING_BYTES} (THREADLAB_LLM_RECORD_MAX_MB is at most 256).`,
      };
    return parseRecording(await handle.readFile('utf8'), path);
  } finally {
    await handle.close();
  }
}
