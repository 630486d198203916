import { createHash } from 'node:crypto';
import type { Display } from '../domain/execution.js';
import type { ReplyImage } from '../domain/reply.js';
import type { ArtifactRenderer, ImageInput, RenderOptions } from '../ports/artifact-renderer.js';
import { displayImage, MAX_RENDERED_IMAGES } from './reply-media.js';

/**
 * An {@link ArtifactRenderer} for one job that starts rendering each figure as its run sends it, so the work is
 * done while the turn goes on (a model writing its next step) instead of after it. The reply asks for the same
 * image later and gets the render already under way. Figures are numbered as the reply numbers them; an image the
 * reply asks for under another name, alt text or size was not started, and is rendered then.
 *
 * Bounded: one render ahead at a time (a figure's pixels are decoded whole), at most
 * {@link MAX_RENDERED_IMAGES} per job. A render that fails is reported when the reply asks for its image.
 */
export class RenderAhead implements ArtifactRenderer {
  private readonly started = new Map<string, Promise<ReplyImage>>();
  private figures = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private begun = 0;

  constructor(
    private readonly inner: ArtifactRenderer,
    private readonly options: RenderOptions,
  ) {}

  /** A display the turn produced: its image, if it has one, starts rendering behind those before it. */
  display(display: Display): void {
    const input = displayImage(display, this.figures + 1);
    if (!input) return;
    this.figures += 1;
    if (this.begun >= MAX_RENDERED_IMAGES) return;
    const key = keyOf(input, this.options);
    if (this.started.has(key)) return;
    this.begun += 1;
    const rendering = this.queue.then(() => this.inner.renderImage(input, this.options));
    this.queue = rendering.catch(() => undefined);
    this.started.set(key, rendering);
  }

  /** How many renders were started ahead. */
  get startedAhead(): number {
    return this.begun;
  }

  renderImage(input: ImageInput, options: RenderOptions): Promise<ReplyImage> {
    const key = keyOf(input, options);
    const rendering = this.started.get(key);
    if (rendering === undefined) return this.inner.renderImage(input, options);
    this.started.delete(key);
    return rendering;
  }

  contactSheet(
    images: ReplyImage[],
    options: RenderOptions & { title?: string; firstIndex?: number },
  ): Promise<ReplyImage> {
    return this.inner.contactSheet(images, options);
  }
}

function keyOf(input: ImageInput, options: RenderOptions): string {
  const digest = createHash('sha256').update(input.data).digest('hex');
  return JSON.stringify([options.maxImageDimensionPx, input.name, input.alt ?? null, input.mime ?? null, digest]);
}
