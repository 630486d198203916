import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';

/**
 * Matplotlib charts of the kinds users ask for (lines, bars, scatter, histogram, heatmap, pie, subplots), at
 * 100–200 dpi, one base64 PNG (or SVG) per stdout line. Seeded, so every run makes the same bytes.
 */
const CHARTS_PY = String.raw`
import base64, io, sys
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
n = int(sys.argv[1])
fmt = sys.argv[2] if len(sys.argv) > 2 else "png"
rng = np.random.default_rng(7)
def line(ax):
    x = np.linspace(0, 10, 400)
    for k in range(3): ax.plot(x, np.sin(x + k) * np.exp(-x / (8 + k)), label=f"series {k}")
    ax.legend(); ax.set_title("Damped waves"); ax.set_xlabel("time (s)"); ax.set_ylabel("amplitude")
def bars(ax):
    ax.bar([f"Q{i}" for i in range(1, 9)], rng.integers(20, 100, 8), color="tab:blue")
    ax.set_title("Revenue by quarter"); ax.set_ylabel("k$")
def scatter(ax):
    ax.scatter(rng.normal(size=600), rng.normal(size=600), c=rng.random(600), s=12, cmap="plasma", alpha=0.7)
    ax.set_title("Scatter"); ax.set_xlabel("x"); ax.set_ylabel("y")
def hist(ax):
    ax.hist(rng.normal(50, 12, 5000), bins=40, color="tab:green", edgecolor="white")
    ax.set_title("Distribution"); ax.set_xlabel("value"); ax.set_ylabel("count")
def heat(ax):
    im = ax.imshow(rng.random((40, 40)).cumsum(axis=0), cmap="viridis"); plt.colorbar(im, ax=ax)
    ax.set_title("Heatmap")
def pie(ax):
    ax.pie(rng.integers(5, 30, 6), labels=list("ABCDEF"), autopct="%1.0f%%"); ax.set_title("Share")
kinds = [line, bars, scatter, hist, heat, pie]
for i in range(n):
    if i % 7 == 6:
        fig, axes = plt.subplots(2, 2, figsize=(12, 8), dpi=200)
        for ax, kind in zip(axes.flat, kinds): kind(ax)
    else:
        fig, ax = plt.subplots(figsize=(6.4, 4.8), dpi=(100, 150, 200)[i % 3])
        kinds[i % len(kinds)](ax)
    fig.tight_layout()
    buf = io.BytesIO(); fig.savefig(buf, format=fmt); plt.close(fig)
    sys.stdout.write(base64.b64encode(buf.getvalue()).decode() + "\n")
`;

export interface SandboxChartsOptions {
  docker: Docker;
  /** Sandbox image tag with Python and matplotlib, e.g. "threadlab-sandbox:1.2.0". */
  image: string;
  /** How many charts. @defaultValue 12 */
  count?: number;
  /** @defaultValue "png" */
  format?: 'png' | 'svg';
  /** Container name. @defaultValue "threadlab-bench-charts-<uuid>" */
  name?: string;
  /** @defaultValue 120000 */
  timeoutMs?: number;
}

/**
 * Makes charts (PNG, or SVG) with matplotlib inside the sandbox image, in a throwaway container with no network, a
 * read-only root and no capabilities (the same confinement user code gets), and returns their bytes. For
 * `threadlab bench render` and the renderer's integration tests.
 */
export async function generateSandboxCharts(options: SandboxChartsOptions): Promise<Buffer[]> {
  const count = options.count ?? 12;
  const container = await options.docker.createContainer({
    name: options.name ?? `threadlab-bench-charts-${randomUUID()}`,
    Image: options.image,
    Entrypoint: ['python3', '-c', CHARTS_PY, String(count), options.format ?? 'png'],
    Cmd: [],
    Env: ['MPLCONFIGDIR=/tmp/mpl'],
    User: '1000:1000',
    NetworkDisabled: true,
    HostConfig: {
      NetworkMode: 'none',
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Tmpfs: { '/tmp': 'rw,noexec,nosuid,size=64m' },
      Memory: 1024 * 1024 * 1024,
      PidsLimit: 64,
    },
  });
  try {
    const stream = await container.attach({ stream: true, stdout: true, stderr: true });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const outChunks: Buffer[] = [];
    const errChunks: Buffer[] = [];
    stdout.on('data', (c: Buffer) => outChunks.push(c));
    stderr.on('data', (c: Buffer) => errChunks.push(c));
    container.modem.demuxStream(stream, stdout, stderr);
    const ended = new Promise<void>((resolve) => stream.on('end', () => resolve()));
    await container.start();
    const timeoutMs = options.timeoutMs ?? 120_000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`chart generation took over ${timeoutMs} ms`)), timeoutMs);
    });
    const status = (await Promise.race([container.wait(), timedOut]).finally(() => clearTimeout(timer))) as {
      StatusCode: number;
    };
    await Promise.race([ended, new Promise((r) => setTimeout(r, 2000))]);
    if (status.StatusCode !== 0) {
      const tail = Buffer.concat(errChunks).toString('utf8').slice(-2000);
      throw new Error(`chart generation failed (exit ${status.StatusCode}): ${tail}`);
    }
    const lines = Buffer.concat(outChunks)
      .toString('latin1')
      .split('\n')
      .filter((l) => l.length > 0);
    return lines.map((l) => Buffer.from(l, 'base64'));
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
}
