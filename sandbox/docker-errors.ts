import { ThreadlabError } from '../src/domain/errors.js';

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOENT',
  'EACCES',
  'EPERM',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ETIMEDOUT',
  'EPIPE',
]);

function statusOf(err: unknown): number | undefined {
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** Whether a dockerode error is a 404 (no such container or image). */
export function isNotFound(err: unknown): boolean {
  return statusOf(err) === 404;
}

/** Whether the Docker engine itself could not be reached (socket missing, refused, no permission). */
export function isUnreachable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNREACHABLE.has(code);
}

/** The error to throw when Docker cannot be reached. */
export function dockerUnreachable(err: unknown): ThreadlabError {
  return new ThreadlabError(
    'docker_unreachable',
    'The Docker engine cannot be reached; start Docker or set DOCKER_HOST to where it listens.',
    { cause: err, isRetryable: true },
  );
}

/** The error to throw when the sandbox image is not on the engine. */
export function imageMissing(image: string, err?: unknown): ThreadlabError {
  return new ThreadlabError(
    'sandbox_image_missing',
    `The sandbox image ${image} is not built; run \`threadlab sandbox build\` (or set THREADLAB_SANDBOX_IMAGE).`,
    { cause: err, details: { image } },
  );
}

/** Converts a failure while creating or starting a container into a typed error. */
export function startFailure(image: string, err: unknown): ThreadlabError {
  if (err instanceof ThreadlabError) return err;
  if (isUnreachable(err)) return dockerUnreachable(err);
  const message = err instanceof Error ? err.message : String(err);
  if (isNotFound(err) && /image/i.test(message)) return imageMissing(image, err);
  return new ThreadlabError('sandbox_start_failed', `A sandbox container could not be started: ${message}`, {
    cause: err,
    isRetryable: true,
  });
}
