import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import type { Logger } from '../src/logger.js';
import { LABELS, type SandboxLimits } from './container-spec.js';
import { DockerSandbox } from './docker-sandbox.js';

export interface BenchOptions {
  docker: Docker;
  image: string;
  limits: SandboxLimits;
  dataDir: string;
  logger: Logger;
  /** Samples of the fast measurements; the slow baselines take fewer. @defaultValue 20 */
  iterations?: number;
  /** Receives each line of the report. */
  out: (line: string) => void;
}

/** Latency percentiles of one measurement, in milliseconds. */
export interface BenchStats {
  samples: number;
  p50Ms: number;
  p95Ms: number;
}

export interface BenchReport {
  /** (a) A warm session running `print(1)`. */
  warmPrint: BenchStats;
  /** (b) A new session's first run of `import pandas as pd; print(pd.__version__)`, served by the pool. */
  newSessionPandas: BenchStats;
  /** (c) `docker run --rm IMAGE python3 -c "import pandas…"` through the API (create, start, wait, remove). */
  naiveDockerRun: BenchStats;
  /** (c) `docker exec` of a fresh python with the same import in a running container. */
  naiveDockerExec: BenchStats;
  /** (d) A small matplotlib chart, PNG back to the bot. */
  chart: BenchStats;
  /** (e) Resident memory of one idle, warmed session container (usage minus page cache), in MiB. */
  idleSessionMemoryMb: number;
  /** How many times faster (b) is than each naive baseline, on p50. */
  speedup: { vsDockerRun: number; vsDockerExec: number };
  targets: {
    warmPrintP50Under5Ms: boolean;
    newSessionP50Under50Ms: boolean;
    newSession15xFasterThanDockerRun: boolean;
  };
}

/** Baseline containers carry the sandbox labels, so orphan removal cleans up after a crashed bench. */
const baselineLabels = (instanceId: string) => ({
  [LABELS.sandbox]: '1',
  [LABELS.instance]: instanceId,
  [LABELS.session]: 'bench',
  [LABELS.host]: hostname(),
  [LABELS.pid]: String(process.pid),
});

const PANDAS = 'import pandas as pd; print(pd.__version__)';
const CHART = 'import matplotlib.pyplot as plt\nplt.plot([1, 3, 2, 4]); plt.title("bench")';

/** Nearest-rank p50 and p95 of samples in milliseconds. */
export function stats(samplesMs: number[]): BenchStats {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  return { samples: sorted.length, p50Ms: round(at(0.5)), p95Ms: round(at(0.95)) };
}

const round = (n: number) => Math.round(n * 100) / 100;

async function time(times: number, fn: (i: number) => Promise<void>, before?: () => Promise<void>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    await before?.();
    const start = performance.now();
    await fn(i);
    samples.push(performance.now() - start);
  }
  return samples;
}

/** Runs the sandbox benchmark side by side with the naive baselines and prints a report. */
export async function benchSandbox(options: BenchOptions): Promise<BenchReport> {
  const { docker, image, out } = options;
  const iterations = options.iterations ?? 20;
  const slow = Math.max(3, Math.min(iterations, 8));
  const instanceId = `bench-${process.pid}-${randomBytes(3).toString('hex')}`;
  const sandbox = new DockerSandbox({
    docker,
    image,
    limits: { ...options.limits, poolSize: Math.max(1, options.limits.poolSize) },
    dataDir: options.dataDir,
    logger: options.logger,
    instanceId,
  });
  let execContainer: Docker.Container | undefined;
  try {
    await sandbox.start();
    out(`threadlab sandbox bench: image ${image}, ${iterations} iterations (${slow} for container starts)`);
    await sandbox.run('bench-warm', { language: 'python', code: 'print(0)' });
    const warmPrint = stats(
      await time(iterations, () =>
        sandbox.run('bench-warm', { language: 'python', code: 'print(1)' }).then(() => undefined),
      ),
    );
    const chart = stats(
      await time(iterations, () =>
        sandbox.run('bench-warm', { language: 'python', code: CHART }).then(() => undefined),
      ),
    );

    const newSessionPandas = stats(
      await time(
        slow,
        async (i) => {
          const result = await sandbox.run(`bench-new-${i}`, { language: 'python', code: PANDAS });
          if (result.status !== 'ok') throw new Error(`bench run failed: ${result.error?.value ?? result.status}`);
        },
        async () => {
          await sandbox.pool.whenFull();
        },
      ),
    );
    for (let i = 0; i < slow; i++) await sandbox.reset(`bench-new-${i}`);
    await sandbox.pool.whenFull();
    const idleSessionMemoryMb = await idleMemoryMb(docker, instanceId);

    const naiveDockerRun = stats(await time(slow, () => dockerRunOnce(docker, image, instanceId)));
    execContainer = await docker.createContainer({
      Image: image,
      Entrypoint: ['/usr/bin/tini', '-s', '--'],
      Cmd: ['sleep', 'infinity'],
      Labels: baselineLabels(instanceId),
      HostConfig: { NetworkMode: 'none' },
    });
    await execContainer.start();
    const running = execContainer;
    const naiveDockerExec = stats(await time(slow, () => dockerExecOnce(running)));

    const report: BenchReport = {
      warmPrint,
      newSessionPandas,
      naiveDockerRun,
      naiveDockerExec,
      chart,
      idleSessionMemoryMb,
      speedup: {
        vsDockerRun: round(naiveDockerRun.p50Ms / newSessionPandas.p50Ms),
        vsDockerExec: round(naiveDockerExec.p50Ms / newSessionPandas.p50Ms),
      },
      targets: {
        warmPrintP50Under5Ms: warmPrint.p50Ms <= 5,
        newSessionP50Under50Ms: newSessionPandas.p50Ms <= 50,
        newSession15xFasterThanDockerRun: naiveDockerRun.p50Ms / newSessionPandas.p50Ms >= 15,
      },
    };
    printReport(report, out);
    return report;
  } finally {
    await execContainer?.remove({ force: true }).catch(() => undefined);
    await sandbox.close();
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

/** Average memory of the instance's idle containers (cgroup v1: usage minus page cache). */
async function idleMemoryMb(docker: Docker, instanceId: string): Promise<number> {
  const containers = await docker.listContainers({ filters: { label: [`${LABELS.instance}=${instanceId}`] } });
  const values: number[] = [];
  for (const info of containers) {
    const s = (await docker.getContainer(info.Id).stats({ stream: false })) as {
      memory_stats?: { usage?: number; stats?: { cache?: number; total_inactive_file?: number } };
    };
    const usage = s.memory_stats?.usage ?? 0;
    const cache = s.memory_stats?.stats?.cache ?? s.memory_stats?.stats?.total_inactive_file ?? 0;
    if (usage > 0) values.push((usage - cache) / (1024 * 1024));
  }
  return values.length ? round(values.reduce((a, b) => a + b, 0) / values.length) : NaN;
}

function printReport(report: BenchReport, out: (line: string) => void): void {
  const row = (label: string, s: BenchStats) =>
    out(
      `${label.padEnd(60)} p50 ${s.p50Ms.toFixed(2).padStart(9)} ms   p95 ${s.p95Ms.toFixed(2).padStart(9)} ms   (n=${s.samples})`,
    );
  row('(a) warm session: print(1)', report.warmPrint);
  row('(b) new session, first run: import pandas (pool hit)', report.newSessionPandas);
  row('(c) naive: docker run --rm IMAGE python3 -c import pandas', report.naiveDockerRun);
  row('(c) naive: docker exec python3 -c import pandas', report.naiveDockerExec);
  row('(d) matplotlib chart end to end (PNG back)', report.chart);
  out(`(e) resident memory per idle session: ${report.idleSessionMemoryMb} MiB`);
  out(`speedup of (b): ${report.speedup.vsDockerRun}x vs docker run, ${report.speedup.vsDockerExec}x vs docker exec`);
  const mark = (ok: boolean) => (ok ? 'met' : 'MISSED');
  out(
    `targets: (a) <= 5 ms ${mark(report.targets.warmPrintP50Under5Ms)}; (b) <= 50 ms ${mark(report.targets.newSessionP50Under50Ms)}; ` +
      `(b) >= 15x faster than docker run ${mark(report.targets.newSession15xFasterThanDockerRun)}`,
  );
}
