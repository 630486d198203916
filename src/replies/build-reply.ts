import type { AnswerFigures } from '../domain/figures.js';
import type { OmittedFile, Reply, ReplyFile, RunRecord } from '../domain/reply.js';
import type { TurnOutcome, TurnResult, TurnRun } from '../interpreter/turn.js';
import type { Logger } from '../logger.js';
import type { ArtifactRenderer, ImageInput } from '../ports/artifact-renderer.js';
import type { Sandbox } from '../ports/sandbox.js';
import { directRunSection } from './direct-text.js';
import { basename, formatCount } from '../domain/text/format.js';
import { collectArtifacts, displayImage, FileNames, renderImages, type MediaDeps } from './reply-media.js';
import { boundOmitted, LIST_REPLY_BOUNDS, moreFilesLine, type ReplyBounds } from './reply-bounds.js';
import { isLongOutput, outputExcerpt, previewOutput, runOutputText, splitLines } from './run-output.js';
import { collectTables } from './reply-tables.js';
import { findFileLinks } from './file-links.js';
import { attachLinkedFiles, rewriteFileLinks, withoutShownCopies, type LinkTargets } from './link-files.js';

export interface ReplyLimits {
  /** Longest image side (THREADLAB_REPLY_MAX_IMAGE_PX). */
  maxImageDimensionPx: number;
  /** Output lines shown in the text; longer output is attached as a file (THREADLAB_REPLY_MAX_OUTPUT_LINES). */
  maxOutputLines: number;
  /** Largest generated file read back for attaching (THREADLAB_MAX_FILE_MB); larger ones are listed as omitted. */
  maxFileBytes: number;
  /** How much one reply carries on its platform (files, bytes, notes). @defaultValue `LIST_REPLY_BOUNDS` */
  bounds?: ReplyBounds;
}

export interface BuildReplyDeps {
  /**
   * Reads generated files and full outputs of the thread's session; lists its files when the answer links one that
   * no run of the turn made (without `listFiles`, such a link is marked as not found).
   */
  sandbox: Pick<Sandbox, 'readFile'> & Partial<Pick<Sandbox, 'listFiles'>>;
  renderer: ArtifactRenderer;
  threadKey: string;
  limits: ReplyLimits;
  logger?: Logger;
}

const KIND_BY_OUTCOME: Record<TurnOutcome, Reply['kind']> = {
  answer: 'answer',
  budget: 'notice',
  cancelled: 'notice',
  failed: 'error',
  not_configured: 'notice',
};

const FALLBACK_TEXT: Record<TurnOutcome, string> = {
  answer: 'Done.',
  budget: 'I ran out of my budget for this message before finishing.',
  cancelled: 'Stopped.',
  failed: 'The language model failed, so there is no answer.',
  not_configured: 'No language model is configured. Send code in a ``` block and I will run it directly.',
};

/**
 * Turns a finished turn into the platform-neutral Reply. LLM turns: the model's markdown, with every long run
 * output attached and named in a line of text. Direct turns: each run's output as a code block, tables, and
 * the error with its traceback. Both: figures the runs displayed (alt text from title and axis labels), then
 * generated files under their own names (image files shown as images too). Nothing is dropped silently: what
 * cannot be attached is listed in `omitted` with why.
 */
export async function buildReply(turn: TurnResult, deps: BuildReplyDeps): Promise<Reply> {
  const names = new FileNames();
  const bounds = deps.limits.bounds ?? LIST_REPLY_BOUNDS;
  const media: MediaDeps = {
    sandbox: deps.sandbox,
    renderer: deps.renderer,
    threadKey: deps.threadKey,
    maxImageDimensionPx: deps.limits.maxImageDimensionPx,
    maxFileBytes: deps.limits.maxFileBytes,
    maxFiles: bounds.maxFiles,
    maxFileBytesTotal: bounds.maxFileBytesTotal,
    logger: deps.logger,
  };
  // Generated files claim their names first: they are the user's, output files adapt around them.
  const collected = await collectArtifacts(turn.runs, media, names);
  // Files the answer links that no run of this turn made (an earlier message's chart) are read too.
  const links = turn.direct ? [] : findFileLinks(turn.text);
  const linked = await attachLinkedFiles(links, collected, {
    deps: {
      sandbox: deps.sandbox,
      threadKey: deps.threadKey,
      maxFileBytes: deps.limits.maxFileBytes,
      maxFiles: bounds.maxFiles,
      maxFileBytesTotal: bounds.maxFileBytesTotal,
      logger: deps.logger,
    },
    names,
  });
  const omitted: OmittedFile[] = [...collected.omitted, ...linked.omitted];
  const outputs = await Promise.all(turn.runs.map((run) => fullOutput(run, deps, omitted)));
  const tables = await collectTables(turn.runs, {
    direct: turn.direct === true,
    names,
    deps: {
      sandbox: deps.sandbox,
      threadKey: deps.threadKey,
      maxFileBytes: deps.limits.maxFileBytes,
      logger: deps.logger,
    },
  });
  omitted.push(...tables.omitted);
  const several = turn.runs.length > 1;

  const outputFiles: ReplyFile[] = [];
  const sections: string[] = [];
  turn.runs.forEach((run, i) => {
    const ctx = {
      number: i + 1,
      several,
      output: outputs[i]!,
      maxOutputLines: deps.limits.maxOutputLines,
      names,
      nameByPath: collected.nameByPath,
    };
    if (turn.direct) {
      const section = directRunSection(run, ctx);
      sections.push(section.markdown);
      outputFiles.push(...section.files);
    } else if (isLongOutput(ctx.output, ctx.maxOutputLines)) {
      const fileName = names.unique(several ? `output-${ctx.number}.txt` : 'output.txt');
      const full = previewOutput(ctx.output, { maxLines: ctx.maxOutputLines, fileName }).full!;
      outputFiles.push({
        name: fileName,
        mime: 'text/plain',
        data: full,
        description: `full output of run ${ctx.number}`,
      });
      sections.push(
        `Run ${ctx.number} printed ${formatCount(splitLines(ctx.output).length)} lines; the full output is attached as \`${fileName}\`.`,
      );
    }
  });
  if (collected.beyond.length > 0)
    sections.push(moreFilesLine(collected.beyond, { maxFiles: bounds.maxFiles, maxChars: bounds.maxListedNamesChars }));

  const figures: { input: ImageInput; fromFile: boolean }[] = [];
  for (const run of turn.runs) {
    for (const display of run.result.displays) {
      const input = displayImage(display, figures.length + 1);
      if (input) figures.push({ input, fromFile: false });
    }
  }
  for (const input of collected.images) figures.push({ input, fromFile: true });
  // A linked image of an earlier message is shown, not attached; if it cannot be shown, its original is attached.
  for (const input of linked.images) figures.push({ input, fromFile: false });
  const rendered = await renderImages(figures, media);
  omitted.push(...rendered.omitted);
  const originals = rendered.files.map((f) => ({ ...f, name: names.unique(f.name) }));
  const allFiles = [...collected.files, ...linked.files, ...tables.files, ...outputFiles, ...originals];
  const targets: LinkTargets = {
    nameByPath: new Map([...collected.nameByPath, ...linked.nameByPath]),
    imageByName: new Map(
      [...collected.images, ...linked.images].flatMap((input) => {
        const image = rendered.shown.get(input);
        return image ? [[input.name, image] as const] : [];
      }),
    ),
    fileNames: new Set(allFiles.map((f) => f.name)),
    notAttached: new Map([...collected.notAttached, ...linked.notAttached]),
    ...(linked.listed ? { listed: linked.listed } : {}),
  };
  const answer = rewriteFileLinks(turn.text, links, targets);
  const text = composeText(
    { ...turn, text: answer.text },
    [...sections, ...tables.notes, ...rendered.notes],
    tables.tables.length > 0,
  );
  const lead = answer.text.length - answer.text.trimStart().length;
  const fileLinks = answer.links.map((l) => ({ ...l, start: l.start - lead, end: l.end - lead }));
  const allOmitted = boundOmitted(omitted, bounds.maxOmitted);

  const tokens = turn.usage.promptTokens + turn.usage.completionTokens;
  return {
    kind: KIND_BY_OUTCOME[turn.outcome],
    text,
    runs: turn.runs.map((run, i) => runRecord(run, outputs[i]!)),
    images: rendered.images,
    files: withoutShownCopies(allFiles, fileLinks, targets),
    ...(allOmitted.length > 0 ? { omitted: allOmitted } : {}),
    ...(tables.tables.length > 0 ? { tables: tables.tables } : {}),
    ...(turn.thinking ? { thinking: turn.thinking } : {}),
    ...(turn.figures ? { figures: figuresOf(turn.figures, { text, shift: (n) => answer.shift(n) - lead }) } : {}),
    ...(fileLinks.length > 0 ? { fileLinks } : {}),
    ...(turn.outcome === 'answer' && !turn.direct && turn.model ? { feedback: { model: turn.model } } : {}),
    footer: {
      durationMs: turn.durationMs,
      runs: turn.runs.length,
      ...(tokens > 0 ? { tokens } : {}),
      ...(turn.model ? { model: turn.model } : {}),
    },
  };
}

function composeText(turn: TurnResult, sections: string[], hasTables = false): string {
  const lead = turn.text.trim();
  if (turn.direct) {
    const body = sections.filter((s) => s.length > 0);
    // A run whose only output is a table needs no "Done." above it.
    if (body.length === 0) return lead || (hasTables && turn.outcome === 'answer' ? '' : FALLBACK_TEXT[turn.outcome]);
    return [lead, ...body].filter((s) => s.length > 0).join('\n\n');
  }
  return [lead || FALLBACK_TEXT[turn.outcome], ...sections].join('\n\n');
}

/**
 * The check as the reply carries it: marks moved past the rewritten file links, and only those that stand where
 * they say in the reply's text.
 */
function figuresOf(figures: AnswerFigures, o: { text: string; shift: (offset: number) => number }): AnswerFigures {
  const marks = figures.marks.map((m) => ({ ...m, start: o.shift(m.start), end: o.shift(m.start) + m.text.length }));
  return { ...figures, marks: marks.filter((m) => o.text.slice(m.start, m.end) === m.text) };
}

/** The run's whole output: the sandbox elides the middle of long output and keeps the full text in a file. */
async function fullOutput(run: TurnRun, deps: BuildReplyDeps, omitted: OmittedFile[]): Promise<string> {
  const path = run.result.truncated?.fullOutputPath;
  if (path) {
    try {
      const full = await deps.sandbox.readFile(deps.threadKey, path);
      return runOutputText(run.result, full.toString('utf8'));
    } catch (err) {
      deps.logger?.warn({ err, path }, 'full output could not be read');
      const { stdoutBytes, stderrBytes } = run.result.truncated!;
      omitted.push({
        name: basename(path),
        bytes: stdoutBytes + stderrBytes,
        reason: `the full output could not be read from the sandbox (${(err as Error).message}); the middle of the output is missing`,
      });
    }
  }
  return runOutputText(run.result);
}

function runRecord(run: TurnRun, output: string): RunRecord {
  const excerpt = outputExcerpt(output, run.result.error);
  return {
    language: run.language,
    code: run.code,
    status: run.result.status,
    durationMs: run.result.durationMs,
    ...(excerpt !== undefined ? { outputExcerpt: excerpt } : {}),
    ...(run.query ? { query: run.query } : {}),
  };
}
