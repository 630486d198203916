import Docker from 'dockerode';
import type { Config } from '../../src/config/index.js';
import type { Logger } from '../../src/logger.js';
import { createDockerSandbox, type DockerSandbox } from '../../sandbox/index.js';
import type { FakeOpenAiServer } from '../fakes/fake-openai-server.js';
import { sandboxImage } from './sandbox-image.js';
import { sandboxRuntime } from './sandbox-runtime.js';

/** The configuration that points a rig at a started fake model (none without one). */
export function fakeModelEnv(tag: string, llm: FakeOpenAiServer | undefined): Record<string, string> {
  if (!llm) return {};
  return { OPENAI_API_KEY: `sk-e2e-${tag}-0000000000`, OPENAI_BASE_URL: llm.baseUrl, THREADLAB_LLM_STREAM: 'false' };
}

/** The real Docker sandbox the platform rigs share: the configuration's limits with a 30 s run limit. */
export function rigSandbox(config: Config, dataDir: string, logger: Logger, tag: string): Promise<DockerSandbox> {
  return sandboxImage().then((image) =>
    createDockerSandbox({
      docker: new Docker(),
      image,
      limits: { ...config.sandbox, timeoutMs: 30_000 },
      dataDir,
      logger,
      instanceId: `test-${tag}-${process.pid}-${Date.now().toString(36)}`,
      runtime: sandboxRuntime(),
    }),
  );
}
