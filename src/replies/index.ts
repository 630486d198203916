/** The platform-neutral reply logic adapters and the worker call. */
export { buildReply, type BuildReplyDeps, type ReplyLimits } from './build-reply.js';
export { splitMessage, planSplit, type SplitOptions, type SplitChunk } from './split-message.js';
export { fitImages, type FitImagesOptions, type FittedImages } from './fit-images.js';
export { fitFiles, type FitFilesOptions, type FittedFiles } from './fit-files.js';
export { formatTable, parseHtmlTable, readTableDisplay, type TableData, type TableDisplay } from './tables.js';
export { formatBytes, formatCount, formatDuration } from '../domain/text/format.js';
export { writeZip, type ZipEntry } from './zip.js';
