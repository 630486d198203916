import type { APIModalInteractionResponseCallbackData } from 'discord.js';
import { z } from 'zod';
import { safeFileName } from '../../src/domain/file-names.js';
import type { InboundAttachment, InboundMessage } from '../../src/domain/messages.js';
import { commandMessage, RUN_LANGUAGES, runCommand, type CommandView, type RunLanguage } from './map-interaction.js';

/** Prefix of the modals' custom ids: `threadlab_modal:run`, `threadlab_modal:run:<language>` or `threadlab_modal:ask`. */
export const MODAL_PREFIX = 'threadlab_modal:';
/** Custom id of the modal's text input (the program, or the question). */
export const MODAL_TEXT_ID = 'text';
/** Custom id of the modal's File Upload component. */
export const MODAL_FILES_ID = 'files';
/** Longest text a modal's text input takes: Discord's limit for a text input's `max_length`. */
export const MODAL_TEXT_MAX_CHARS = 4000;
/** Most files one submission may carry: the File Upload component's `max_values` limit. */
export const MODAL_MAX_FILES = 10;

/** Discord's component types used here (discord-api-types `ComponentType`): Text Input, Label, File Upload. */
const TEXT_INPUT = 4;
const LABEL = 18;
const FILE_UPLOAD = 19;
/** Text input style 2: Paragraph (multi-line). */
const PARAGRAPH = 2;

/** `/run`'s modal carries the language the user chose, if any (else the fence's tag decides, then python). */
export type ModalKind = { kind: 'run'; language?: RunLanguage } | { kind: 'ask' };

/**
 * The modal `/run` without code (a multi-line program) or `/ask` without a question opens: a Paragraph text input
 * and a File Upload (type 19, 0 to 10 files), each in a Label, as Discord's components reference describes
 * ("File Upload": it must be placed inside a Label; `min_values` 0 needs `required: false`).
 */
export function modalFor(kind: ModalKind): APIModalInteractionResponseCallbackData {
  const run = kind.kind === 'run';
  return {
    custom_id: run ? `${MODAL_PREFIX}run${kind.language ? `:${kind.language}` : ''}` : `${MODAL_PREFIX}ask`,
    title: run ? `Run ${kind.language ?? 'code'}` : 'Ask Threadlab',
    components: [
      {
        type: LABEL,
        label: run ? 'Code' : 'Question',
        description: run ? 'Runs as is, in this thread’s sandbox' : 'What should I find out?',
        component: {
          type: TEXT_INPUT,
          custom_id: MODAL_TEXT_ID,
          style: PARAGRAPH,
          required: true,
          max_length: MODAL_TEXT_MAX_CHARS,
        },
      },
      {
        type: LABEL,
        label: 'Files',
        description: 'Put in /mnt/data first (up to 10)',
        component: {
          type: FILE_UPLOAD,
          custom_id: MODAL_FILES_ID,
          min_values: 0,
          max_values: MODAL_MAX_FILES,
          required: false,
        },
      },
    ],
  } as unknown as APIModalInteractionResponseCallbackData;
}

/** The modal a custom id names, or undefined for any other modal. */
export function parseModalId(customId: string): ModalKind | undefined {
  if (customId === `${MODAL_PREFIX}ask`) return { kind: 'ask' };
  if (customId === `${MODAL_PREFIX}run`) return { kind: 'run' };
  const language = RUN_LANGUAGES.find((l) => customId === `${MODAL_PREFIX}run:${l}`);
  return language ? { kind: 'run', language } : undefined;
}

/** A file of a modal's File Upload, from `data.resolved.attachments`. */
const uploadedFile = z.object({
  id: z.string().regex(/^\d{1,22}$/),
  filename: z.string().min(1).max(1024),
  size: z.number().int().nonnegative(),
  url: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u), 'not an http(s) URL'),
  contentType: z.string().max(255).nullable(),
});

/** The facts of a modal submission: the interaction's, the modal's custom id, the text and the uploaded files. */
export interface ModalView extends Omit<CommandView, 'commandName' | 'options'> {
  customId: string;
  text: string;
  files: unknown[];
}

/** A submission mapped: the message for the core, or what to tell the user instead. */
export type ModalMessage = { ok: true; message: InboundMessage } | { ok: false; problem: string };

/**
 * The InboundMessage of a modal submission: `/run`'s program (fence stripped, as the code option) or `/ask`'s
 * question, with the uploaded files as attachments (names made safe; bytes fetched later with the limits of any
 * attachment). More than {@link MODAL_MAX_FILES} files, a file Discord described wrongly, or text over
 * {@link MODAL_TEXT_MAX_CHARS} characters are refused with what to do. Pure.
 */
export function toModalMessage(view: ModalView): ModalMessage {
  const kind = parseModalId(view.customId);
  if (!kind) return { ok: false, problem: 'That form is not one of mine; use /run or /ask again.' };
  if (view.text.length > MODAL_TEXT_MAX_CHARS)
    return { ok: false, problem: `The text is over ${MODAL_TEXT_MAX_CHARS} characters; attach it as a file instead.` };
  if (!view.text.trim()) return { ok: false, problem: 'The form came back empty: write the code or the question.' };
  if (view.files.length > MODAL_MAX_FILES)
    return { ok: false, problem: `${view.files.length} files were sent; a form takes at most ${MODAL_MAX_FILES}.` };
  const attachments: InboundAttachment[] = [];
  for (const raw of view.files) {
    const file = uploadedFile.safeParse(raw);
    if (!file.success)
      return { ok: false, problem: 'Discord described an uploaded file in a way I cannot read; upload it again.' };
    const { id, filename, size, url, contentType } = file.data;
    attachments.push({
      id,
      name: safeFileName(filename),
      bytes: size,
      url,
      ...(contentType ? { mime: contentType } : {}),
    });
  }
  const base = { ...view, commandName: kind.kind, options: {} };
  if (kind.kind === 'ask') return { ok: true, message: commandMessage(base, { text: view.text.trim(), attachments }) };
  const command = runCommand(view.text, kind.language);
  const text = command.name === 'query' ? command.body : command.code;
  return { ok: true, message: commandMessage(base, { text, command, attachments }) };
}
