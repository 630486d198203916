import { createServer } from 'node:http';
import { EgressGateway } from '../../src/egress/gateway.js';
import { parseAllowlist } from '../../src/egress/policy.js';
import type { SandboxRuntime } from '../../app/sandbox-kit.js';
import { oneContainerSandbox, type BenchSandboxBase } from './bench-runtimes.js';
import { BODY, listen, median, timedGet } from './egress-overhead.js';

/** Medians of the same small GETs to one loopback server, from code in a sandbox and from the bot itself. */
export interface SandboxPathRow {
  runtime: SandboxRuntime;
  /** Requests timed on each side (a warm-up on each side comes before them, untimed). */
  requests: number;
  /** Python's urllib in the sandbox, through the relay (supervisor → protocol channel → bot) and the gateway. */
  sandboxMs: number;
  /** The bot process's own GET on a new connection: the path the sandbox does not have. */
  directMs: number;
  /** `sandboxMs - directMs`: what egress costs a request, end to end. */
  overheadMs: number;
}

export interface SandboxPathOptions extends BenchSandboxBase {
  runtime: SandboxRuntime;
  /** Requests per side, each on a new connection. */
  requests: number;
}

/**
 * The code's side: N GETs through the proxy the container's environment names (HTTP_PROXY), timed in the sandbox
 * around each request, so the run's own round trip is left out. Prints one JSON line.
 */
function sandboxCode(url: string, requests: number): string {
  return [
    'import json, time, urllib.request',
    'def get():',
    `    with urllib.request.urlopen(${JSON.stringify(url)}, timeout=10) as r:`,
    `        if r.status != 200 or r.read() != ${JSON.stringify(BODY)}.encode():`,
    '            raise RuntimeError(f"unexpected answer {r.status}")',
    'get()',
    'ms = []',
    `for _ in range(${requests}):`,
    '    started = time.perf_counter()',
    '    get()',
    '    ms.append((time.perf_counter() - started) * 1000)',
    'print(json.dumps(ms))',
  ].join('\n');
}

/**
 * The whole egress path under one runtime: a loopback server, a gateway allowing only it, and a sandbox whose code
 * GETs it `requests` times, against the bot's own GETs of the same server. A failed request fails the bench.
 */
export async function benchSandboxPath(options: SandboxPathOptions): Promise<SandboxPathRow> {
  const { runtime, requests } = options;
  let served = 0;
  const upstream = createServer((_req, res) => {
    served++;
    res.end(BODY);
  });
  const port = await listen(upstream);
  const gateway = new EgressGateway({
    allow: parseAllowlist(`127.0.0.1:${port}`),
    maxConnections: requests + 10,
    maxBytes: 64 * 1024 * 1024,
    logger: options.logger,
  });
  const sandbox = oneContainerSandbox(options, { name: `egress-${runtime}`, runtime, egress: gateway });
  try {
    await sandbox.start();
    const result = await sandbox.run('bench-egress', {
      language: 'python',
      code: sandboxCode(`http://127.0.0.1:${port}/`, requests),
      timeoutMs: Math.max(options.limits.timeoutMs, 60_000),
    });
    const sandboxSamples = parseSamples(result.stdout, requests);
    if (result.status !== 'ok' || !sandboxSamples || served !== requests + 1)
      throw new Error(
        `egress bench under ${runtime}: the sandbox's requests failed (${served} of ${requests + 1} served): ` +
          `${result.error?.value ?? result.status} ${result.stderr.slice(-500)}`,
      );
    await timedGet(port, '/');
    const direct: number[] = [];
    for (let i = 0; i < requests; i++) direct.push(await timedGet(port, '/'));
    const sandboxMs = median(sandboxSamples);
    const directMs = median(direct);
    return { runtime, requests, sandboxMs, directMs, overheadMs: sandboxMs - directMs };
  } finally {
    await sandbox.close();
    upstream.close();
    upstream.closeAllConnections();
  }
}

/** The sandbox's printed samples: exactly `count` finite milliseconds, or undefined. */
function parseSamples(stdout: string, count: number): number[] | undefined {
  try {
    const samples: unknown = JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
    if (!Array.isArray(samples) || samples.length !== count) return undefined;
    return samples.every((s) => typeof s === 'number' && Number.isFinite(s) && s >= 0)
      ? (samples as number[])
      : undefined;
  } catch {
    return undefined;
  }
}
