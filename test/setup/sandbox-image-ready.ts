import { readFileSync } from 'node:fs';
import { IMAGE_STATUS_ENV } from '../support/sandbox-image.js';

/** How long a test file waits for the image: a build from scratch takes minutes on a loaded machine. */
const WAIT_MS = 30 * 60_000;

/**
 * Waits until the global set-up's sandbox image build ended, and fails the file with the build's error if it
 * failed. The build runs while the unit tests do; this set-up file holds each integration and e2e file until it
 * is done (the first ones wait, the rest find it done).
 */
export async function sandboxImageReady(statusFile = process.env[IMAGE_STATUS_ENV]): Promise<void> {
  if (!statusFile) return; // an image given beforehand, or a file run on its own
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    let text: string | undefined;
    try {
      text = readFileSync(statusFile, 'utf8');
    } catch {
      text = undefined;
    }
    if (text) {
      const status = JSON.parse(text) as { ok?: boolean; error?: string };
      if (status.ok) return;
      throw new Error(
        `The sandbox image ${process.env.THREADLAB_TEST_SANDBOX_IMAGE} could not be built: ${status.error}`,
      );
    }
    if (Date.now() > deadline) throw new Error(`The sandbox image was not built within ${WAIT_MS / 60_000} minutes.`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

await sandboxImageReady();
