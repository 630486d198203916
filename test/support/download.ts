import type { InboundAttachment } from '../../src/domain/messages.js';
import type { PlatformAdapter } from '../../src/ports/platform-adapter.js';

/** Downloads an attachment through an adapter and reads its stream to the end (tests of small files only). */
export async function downloadAll(
  adapter: Pick<PlatformAdapter, 'download'>,
  attachment: InboundAttachment,
  options: { maxBytes: number; signal?: AbortSignal },
): Promise<Buffer> {
  const { stream } = await adapter.download(attachment, options);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
