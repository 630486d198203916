import { hostname } from 'node:os';
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { LABELS } from '../../app/sandbox-kit.js';
import { stats, time, type BenchStats } from './bench-stats.js';

/** Baseline containers carry the sandbox labels, so orphan removal cleans up after a crashed bench. */
const baselineLabels = (instanceId: string) => ({
  [LABELS.sandbox]: '1',
  [LABELS.instance]: instanceId,
  [LABELS.session]: 'bench',
  [LABELS.host]: hostname(),
  [LABELS.pid]: String(process.pid),
});

/** What a new thread's first run imports, timed by (b) and by the naive baselines (c). */
export const PANDAS = 'import pandas as pd; print(pd.__version__)';

/**
 * (c) The naive baselines under runc, `samples` times each: `docker run --rm IMAGE python3 -c "import pandas…"`
 * through the API (create, start, wait, remove), and `docker exec` of a fresh python with the same import in a
 * running container, which is removed afterwards.
 */
export async function benchDockerBaselines(
  docker: Docker,
  o: { image: string; instanceId: string; samples: number },
): Promise<{ naiveDockerRun: BenchStats; naiveDockerExec: BenchStats }> {
  const { image, instanceId, samples } = o;
  let execContainer: Docker.Container | undefined;
  try {
    const naiveDockerRun = stats(await time(samples, () => dockerRunOnce(docker, image, instanceId)));
    execContainer = await docker.createContainer({
      Image: image,
      Entrypoint: ['/usr/bin/tini', '-s', '--'],
      Cmd: ['sleep', 'infinity'],
      Labels: baselineLabels(instanceId),
      HostConfig: { NetworkMode: 'none' },
    });
    await execContainer.start();
    const running = execContainer;
    const naiveDockerExec = stats(await time(samples, () => dockerExecOnce(running)));
    return { naiveDockerRun, naiveDockerExec };
  } finally {
    await execContainer?.remove({ force: true }).catch(() => undefined);
  }
}

async function dockerRunOnce(docker: Docker, image: string, instanceId: string): Promise<void> {
  const container = await docker.createContainer({
    Image: image,
    Labels: baselineLabels(instanceId),
    Cmd: ['python3', '-c', PANDAS],
    HostConfig: { NetworkMode: 'none' },
  });
  try {
    await container.start();
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    if (StatusCode !== 0) throw new Error(`docker run baseline exited with ${StatusCode}`);
  } finally {
    await container.remove({ force: true });
  }
}

async function dockerExecOnce(container: Docker.Container): Promise<void> {
  const exec = await container.exec({ Cmd: ['python3', '-c', PANDAS], AttachStdout: true, AttachStderr: true });
  const stream = (await exec.start({ hijack: true, stdin: false })) as unknown as Duplex;
  await new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', reject);
    stream.resume();
  });
  const info = await exec.inspect();
  if (info.ExitCode !== 0) throw new Error(`docker exec baseline exited with ${info.ExitCode}`);
}
