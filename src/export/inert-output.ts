import { activeMarkdown, activeMarkup } from './inert-markup.js';

/** A form of a result left out of the notebook, and why (from a fixed vocabulary: safe to show). */
export interface LeftOutForm {
  mime: string;
  why: string;
}

/** The forms a notebook viewer renders as markup, with their check; every other kept form (text, PNG, JPEG) is inert. */
const CHECKED: Record<string, (text: string) => string | undefined> = {
  'text/html': activeMarkup,
  'image/svg+xml': activeMarkup,
  'text/markdown': activeMarkdown,
};

/**
 * A result's forms as the notebook shows them: HTML, SVG and Markdown only when inert (see inert-markup.ts), the
 * rest as they are. What was left out is returned, for the output's metadata and the cell's visible note.
 */
export function inertData(data: Record<string, string>): { data: Record<string, string>; leftOut: LeftOutForm[] } {
  const kept: Record<string, string> = {};
  const leftOut: LeftOutForm[] = [];
  for (const [mime, value] of Object.entries(data)) {
    const why = CHECKED[mime]?.(value);
    if (why) leftOut.push({ mime, why });
    else kept[mime] = value;
  }
  return { data: kept, leftOut };
}

/** The visible line of a left-out form, for the cell's note. */
export function leftOutNote(form: LeftOutForm, kept: Record<string, string>): string {
  const instead = ['image/png', 'image/jpeg', 'text/plain'].find((mime) => kept[mime] !== undefined);
  return `the ${form.mime} form of a result, which held ${form.why}${instead ? ` (its ${instead} form is shown)` : ''}`;
}
