import { resolve } from 'node:path';
import type { Command } from '../args.js';
import { parse } from '../args.js';
import { readRecording } from '../replay/read-recording.js';
import { comparedRecorded, comparedToday, firstDifference } from '../replay/request-diff.js';
import { isCompletion } from '../replay/replay-server.js';
import { recordedQuestion, replayTurn } from '../replay/replay-turn.js';

const USAGE = `Usage: threadlab replay FILE

Plays back a recording of one turn (written with THREADLAB_LLM_RECORD=DIR) against today's code: the recording
is served as a local OpenAI-compatible endpoint on 127.0.0.1 that answers each request with the recorded
response, in order (streamed if it was streamed); the recorded message runs through the same interpreter as
\`threadlab chat\`, with the recording's model settings, in a fresh thread of the real Docker sandbox. Then it
prints where today's requests differ from the recorded ones: the first request that differs, with its
messages added, removed or changed, its tools and its parameters.
Exit status: 0 when every request is the same, 1 when one differs (or the turn could not run), 2 when FILE is
not a readable recording.
A turn replays exactly when it was its thread's first: a fresh thread has no earlier messages and no files,
and file contents are compared only as recorded (THREADLAB_LLM_RECORD_FILES).`;

export const replayCommand: Command = {
  name: 'replay',
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parse(argv, {}, 'replay');
    if (values.help) return (io.out(`${USAGE}\n`), 0);
    if (positionals.length !== 1) {
      io.err(
        'replay needs exactly one FILE, a recording written with THREADLAB_LLM_RECORD=DIR. Run `threadlab replay --help`.\n',
      );
      return 2;
    }
    const path = resolve(positionals[0]!);
    const recording = await readRecording(path);
    if ('problem' in recording) {
      io.err(`${recording.problem}\n`);
      return 2;
    }
    const question = recordedQuestion(recording);
    if (!question) {
      io.err(`${path}: its first request has no user message to send again.\n`);
      return 2;
    }
    if (recording.truncated)
      io.err(`Note: the recording was cut at its size cap; only the requests it holds are compared.\n`);
    if (question.earlierMessages > 0)
      io.err(
        `Note: the recorded turn had ${question.earlierMessages} messages of earlier turns, which a fresh thread does not have.\n`,
      );
    const turn = await replayTurn(recording, question.text, io);
    const keepFiles = recording.header.files;
    const recorded = recording.exchanges.filter((e) => isCompletion(e.request)).map((e) => comparedRecorded(e.request));
    const today = turn.requests.map((r) => comparedToday(r, keepFiles));
    const compared = recording.truncated ? today.slice(0, recorded.length) : today;
    const difference = firstDifference(recorded, compared);
    const count = `${recorded.length} request${recorded.length === 1 ? '' : 's'} recorded, ${today.length} sent today`;
    io.out(
      `Replayed ${path} (${recording.header.settings.model}, recorded ${recording.header.recordedAt}): ${count}.\n`,
    );
    io.out(`Today's turn: ${turn.outcome}: ${turn.text.replace(/\s+/g, ' ').slice(0, 300)}\n`);
    if (!difference) {
      io.out('Same: every request today is the one recorded.\n');
      return 0;
    }
    io.out(`Request ${difference.index + 1} differs from the recording:\n`);
    for (const line of difference.lines) io.out(`  ${line}\n`);
    return 1;
  },
};
