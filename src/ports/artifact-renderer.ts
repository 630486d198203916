import type { ReplyImage } from '../domain/reply.js';

export interface ImageInput {
  name: string;
  data: Buffer;
  /** Declared MIME type; the renderer trusts the bytes, not this. */
  mime?: string;
  alt?: string;
}

/** Longest side of an image in a reply, in pixels, unless THREADLAB_REPLY_MAX_IMAGE_PX says otherwise. */
export const DEFAULT_MAX_IMAGE_DIMENSION_PX = 2048;

export interface RenderOptions {
  /** Longest side in pixels (THREADLAB_REPLY_MAX_IMAGE_PX); larger images are scaled down. */
  maxImageDimensionPx: number;
}

/** Turns what code produced into what chat shows best. */
export interface ArtifactRenderer {
  /** Normalises one image (PNG, JPEG, WebP, GIF, SVG → PNG or JPEG), scaled and compressed. */
  renderImage(input: ImageInput, options: RenderOptions): Promise<ReplyImage>;
  /** Combines many images into one captioned grid; captions number from `firstIndex` (@defaultValue 1). */
  contactSheet(
    images: ReplyImage[],
    options: RenderOptions & { title?: string; firstIndex?: number },
  ): Promise<ReplyImage>;
}
