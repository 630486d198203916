import { describe, expect, it } from 'vitest';
import type { Display } from '../../../src/domain/execution.js';
import { isThreadlabError } from '../../../src/domain/errors.js';
import type { ReplyImage } from '../../../src/domain/reply.js';
import type { ImageInput, RenderOptions } from '../../../src/ports/artifact-renderer.js';
import { RenderAhead } from '../../../src/replies/render-ahead.js';
import { displayImage, MAX_RENDERED_IMAGES } from '../../../src/replies/reply-media.js';
import { RecordingRenderer } from './helpers.js';

const OPTIONS = { maxImageDimensionPx: 2048 };
const png = (n: number): Display => ({
  data: { 'image/png': Buffer.from(`png bytes ${n}`).toString('base64') },
  meta: { title: `Chart ${n}` },
});
const text: Display = { data: { 'text/plain': '42' } };

/** Renders slowly and counts how many renders overlap. */
class SlowRenderer extends RecordingRenderer {
  inFlight = 0;
  mostInFlight = 0;
  override async renderImage(input: ImageInput, options: RenderOptions): Promise<ReplyImage> {
    this.inFlight += 1;
    this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
    await new Promise((r) => setTimeout(r, 5));
    try {
      return await super.renderImage(input, options);
    } finally {
      this.inFlight -= 1;
    }
  }
}

describe('RenderAhead', () => {
  it('starts a figure when its run sends it, and hands the reply that render under the same name', async () => {
    const inner = new RecordingRenderer();
    const ahead = new RenderAhead(inner, OPTIONS);
    ahead.display(text);
    ahead.display(png(1));
    await new Promise((r) => setImmediate(r));
    expect(inner.rendered.map((i) => i.name)).toEqual(['figure-1.png']);
    // The reply numbers image displays the same way: the text display takes no number.
    const image = await ahead.renderImage(displayImage(png(1), 1)!, OPTIONS);
    expect(image.name).toBe('figure-1.png');
    expect(image.alt).toBe('Chart 1');
    expect(inner.rendered).toHaveLength(1);
    // Asked again (the reply never does), it renders anew rather than hand out one render twice.
    await ahead.renderImage(displayImage(png(1), 1)!, OPTIONS);
    expect(inner.rendered).toHaveLength(2);
  });

  it('renders what it did not start: another name, another size, an image it never saw', async () => {
    const inner = new RecordingRenderer();
    const ahead = new RenderAhead(inner, OPTIONS);
    ahead.display(png(1));
    await ahead.renderImage(displayImage(png(1), 2)!, OPTIONS);
    await ahead.renderImage(displayImage(png(1), 1)!, { maxImageDimensionPx: 512 });
    await ahead.renderImage(displayImage(png(9), 1)!, OPTIONS);
    expect(inner.rendered).toHaveLength(4);
    expect(ahead.startedAhead).toBe(1);
  });

  it('reports a render that failed ahead when the reply asks for its image, and only then', async () => {
    const inner = new RecordingRenderer();
    inner.failNames.add('figure-1.png');
    const ahead = new RenderAhead(inner, OPTIONS);
    ahead.display(png(1));
    ahead.display(png(2));
    await new Promise((r) => setTimeout(r, 10)); // an unobserved rejection would fail the run here
    const failed = await ahead.renderImage(displayImage(png(1), 1)!, OPTIONS).catch((e: unknown) => e);
    expect(isThreadlabError(failed, 'attachment_rejected')).toBe(true);
    // The failure does not stop the figures behind it.
    expect((await ahead.renderImage(displayImage(png(2), 2)!, OPTIONS)).name).toBe('figure-2.png');
    expect(inner.rendered).toHaveLength(2);
  });

  it('renders one figure at a time, and starts at most as many as a reply shows', async () => {
    const inner = new SlowRenderer();
    const ahead = new RenderAhead(inner, OPTIONS);
    for (let n = 1; n <= MAX_RENDERED_IMAGES + 10; n++) ahead.display(png(n));
    expect(ahead.startedAhead).toBe(MAX_RENDERED_IMAGES);
    const images = await Promise.all(
      Array.from({ length: MAX_RENDERED_IMAGES + 10 }, (_, i) =>
        ahead.renderImage(displayImage(png(i + 1), i + 1)!, OPTIONS),
      ),
    );
    expect(images.map((i) => i.name)).toEqual(
      Array.from({ length: MAX_RENDERED_IMAGES + 10 }, (_, i) => `figure-${i + 1}.png`),
    );
    expect(inner.rendered).toHaveLength(MAX_RENDERED_IMAGES + 10);
    // Ahead of the reply, one at a time: the 10 past the bound were rendered when asked, beside the queue.
    expect(inner.mostInFlight).toBeLessThanOrEqual(11);
    const onlyAhead = new SlowRenderer();
    const second = new RenderAhead(onlyAhead, OPTIONS);
    for (let n = 1; n <= 5; n++) second.display(png(n));
    for (let n = 1; n <= 5; n++) await second.renderImage(displayImage(png(n), n)!, OPTIONS);
    expect(onlyAhead.mostInFlight).toBe(1);
  });

  it('passes contact sheets through', async () => {
    const inner = new RecordingRenderer();
    const ahead = new RenderAhead(inner, OPTIONS);
    await ahead.contactSheet([], { ...OPTIONS, title: 'Figures' });
    expect(inner.sheets).toHaveLength(1);
  });
});
