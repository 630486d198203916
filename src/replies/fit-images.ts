import type { ReplyImage } from '../domain/reply.js';
import type { ArtifactRenderer } from '../ports/artifact-renderer.js';

export interface FitImagesOptions {
  /** How many images the platform shows in one message (its files or attachments per message). */
  maxPerMessage: number;
  renderer: ArtifactRenderer;
  /** Longest side of the contact sheet, in pixels. */
  maxImageDimensionPx: number;
}

export interface FittedImages {
  individual: ReplyImage[];
  /** The images that did not fit individually, as one captioned grid. */
  contactSheet?: ReplyImage;
}

/**
 * Fits images into one message without dropping any. Rule: if they all fit (`images.length <= maxPerMessage`),
 * all go individually. Otherwise the first `maxPerMessage - 1` go individually and every remaining image goes
 * into one contact sheet, which takes the last slot — 25 figures with a limit of 10 give 9 images and a sheet of
 * 16 (captioned 10…25, numbered as the figures are). A limit below 1 counts as 1 (everything in the sheet).
 */
export async function fitImages(images: ReplyImage[], options: FitImagesOptions): Promise<FittedImages> {
  const slots = Math.max(1, Math.floor(options.maxPerMessage));
  if (images.length <= slots) return { individual: images };
  const individual = images.slice(0, slots - 1);
  const rest = images.slice(slots - 1);
  const first = individual.length + 1;
  // Captions continue the numbering of the individual figures.
  const contactSheet = await options.renderer.contactSheet(rest, {
    maxImageDimensionPx: options.maxImageDimensionPx,
    title: `Figures ${first}–${images.length} of ${images.length}`,
    firstIndex: first,
  });
  return { individual, contactSheet };
}
