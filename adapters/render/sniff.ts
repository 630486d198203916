/** Image formats the renderer accepts. */
export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp' | 'svg';

const SVG_RE = /^(?:\s|<\?xml[^>]*\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(?:\[[\s\S]*?\])?\s*>)*<svg[\s>]/i;

/** The real format of image bytes, from their magic numbers (declared MIME types and names are not trusted). */
export function sniffImageFormat(data: Buffer): ImageFormat | undefined {
  if (data.length >= 8 && data.readUInt32BE(0) === 0x89504e47 && data.readUInt32BE(4) === 0x0d0a1a0a) return 'png';
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'jpeg';
  if (data.length >= 6 && /^GIF8[79]a$/.test(data.toString('latin1', 0, 6))) return 'gif';
  if (data.length >= 12 && data.toString('latin1', 0, 4) === 'RIFF' && data.toString('latin1', 8, 12) === 'WEBP')
    return 'webp';
  const head = data.toString('utf8', 0, Math.min(data.length, 4096)).replace(/^\uFEFF/, '');
  if (SVG_RE.test(head)) return 'svg';
  return undefined;
}

export const MIME_BY_FORMAT: Record<ImageFormat | 'jpeg', string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
};
