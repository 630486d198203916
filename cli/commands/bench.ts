import { tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from '../args.js';
import { parse } from '../args.js';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/logger.js';
import { createDocker, sandboxImageTag } from '../../app/sandbox-kit.js';
import { prepareImage } from './prepare-image.js';
import { startPrivateRedis } from '../private-redis.js';
import { benchRender } from '../bench/render-bench.js';
import { benchSandbox } from '../bench/sandbox-bench.js';
import { generateSandboxCharts } from '../bench/sandbox-charts.js';
import { benchQueue } from '../bench/queue-bench.js';
import { benchEgress } from '../bench/egress-bench.js';
import { benchGovernance } from '../bench/governance-bench.js';
import { benchFigures } from '../bench/figures-bench.js';
import { benchSources } from '../bench/sources-bench.js';
import { benchBurst } from '../bench/burst-bench.js';
import { benchDurable } from '../bench/durable-bench.js';
import { benchThreads } from '../bench/threads-bench.js';
import { benchLoops } from '../bench/loops-bench.js';
import { oneContainerSandbox } from '../bench/bench-runtimes.js';
import { createRenderer } from '../../app/index.js';
import { writePerfChart } from '../bench/perf-chart-file.js';

export const benchCommand: Command = {
  name: 'bench',
  usage: `Usage: threadlab bench sandbox|durable|render|queue|egress|governance|figures|burst|threads|loops|sources [--iterations N] [--threads N] [--messages N] [--model-ms N]
       threadlab bench chart [--data FILE] [--svg FILE]

  sandbox   under runc and gVisor's runsc (when the engine has it) side by side: warm-session round trip,
            a new thread's first pandas import (warm pool), a chart end to end, memory per idle session and
            a container start; plus the naive docker run / docker exec baselines on the same image
  durable   save and restore of a 100 MB DataFrame and of 1,000 small variables (durable threads), under runc
            and runsc one after the other, with the targets (1 s; 50 ms) checked on p50
  render    bytes saved and milliseconds per image over matplotlib charts generated in the sandbox
  queue     sustained messages/s and p95 queue wait for concurrent threads in direct mode, in-process and
            BullMQ with one and two workers (starts a private redis-server unless REDIS_URL is set)
  egress    the egress gateway's overhead, and small GETs from code in a sandbox (relay and gateway, runc and
            runsc) against the bot's own GETs of the same loopback server
  governance  what each governance feature adds to a message: the access check, an audited run in a
            sandbox, a turn's budget bookkeeping and an approval press reaching the waiting turn (in this
            process and through Redis; starts a private redis-server unless REDIS_URL is set)
  burst     N new threads at the same moment (--threads, default 10) through the web chat's API to their
            answers, under runc and runsc: a fixed warm pool beside the pool that grows with demand
            (THREADLAB_SANDBOX_POOL_SIZE..THREADLAB_SANDBOX_POOL_MAX), p50/p95 time to the first result; then
            the first burst after that bot restarts on the same data dir, its pool refilled to the demand it
            remembered, beside the first burst of a cold start with no memory
  threads   N threads in active use on one worker (--threads, default 200) through the sandbox, under runc and
            runsc: each a message leaving a small state, then idle until its container goes; every 4th comes back
            with its variables. Peak host memory (MemAvailable fall), most containers alive, p50/p95 time to
            answer a new thread and a thread coming back (the idle time is 3 s here, standing in for minutes)
  sources   read-only SQL sources on a private PostgreSQL (1,000,000 generated rows): an aggregate through
            Threadlab's edge against psql -c running the same SQL (ratio; goal ≤ 1.2×), 100,000 rows into CSV,
            and the same rows into a DataFrame in a thread's Docker sandbox (query and load; load alone; goal ≤ 1 s)
  loops     a model that sends the identical failing code every round (a local fake model, the real sandbox),
            with the loop breaker and without it, side by side: model requests, tokens and seconds per turn
  figures   the time to check a 5 KB answer's figures against 100 KB and 2 MB of run output (verified
            answers; no Docker or Redis)
  chart     draws the performance page's figures (--data, default docs/performance.json: measured values the
            benches above printed) as an SVG chart (--svg, default docs/images/performance.svg); measures nothing
  --iterations N   samples per measurement (sandbox; default 30; durable; default 5), charts (render; default 12),
                   requests per side (egress; default 200) or samples per row (governance; default 200;
                   figures; default 30; sources; default 10)
  --threads N      concurrent threads (queue; default 30), threads started at once (burst; default 10) or
                   threads in use (threads; default 200)
  --messages N     messages in all (queue; default 300)
  --model-ms N     the loops bench's model time per request, in ms (default 0: only the bot's and sandbox's time)`,
  async run(argv, io) {
    const { values, positionals } = parse(
      argv,
      {
        iterations: { type: 'string' },
        threads: { type: 'string' },
        messages: { type: 'string' },
        'model-ms': { type: 'string' },
        data: { type: 'string' },
        svg: { type: 'string' },
      },
      'bench',
    );
    const which = positionals[0];
    if (
      values.help ||
      !which ||
      ![
        'sandbox',
        'durable',
        'render',
        'queue',
        'egress',
        'governance',
        'figures',
        'burst',
        'threads',
        'loops',
        'sources',
        'chart',
      ].includes(which)
    ) {
      io.out(`${this.usage}\n`);
      return values.help ? 0 : 2;
    }
    if (which === 'chart') {
      const written = writePerfChart({ dataPath: values.data, svgPath: values.svg });
      io.out(`wrote ${written.svgPath}: ${written.figures} figures\n`);
      return 0;
    }
    const config = loadConfig(io.env);
    const logger = createLogger({ level: 'warn', secrets: config.secrets });
    const out = (line: string) => io.out(`${line}\n`);
    const number = (v: string | undefined, d: number) =>
      v === undefined ? d : Math.max(1, Number.parseInt(v, 10) || d);
    if (which === 'figures') {
      benchFigures({ repetitions: number(values.iterations, 30), out });
      return 0;
    }
    if (which === 'queue') {
      // BullMQ rows need a Redis; without REDIS_URL a private one runs on a free loopback port.
      const redis = config.redis.url ? undefined : await startPrivateRedis();
      try {
        await benchQueue({
          threads: number(values.threads, 30),
          messages: number(values.messages, 300),
          out,
          redisUrl: config.redis.url ?? redis!.url,
        });
      } finally {
        await redis?.stop();
      }
      return 0;
    }
    await prepareImage(config, io);
    const docker = createDocker(config.sandbox.dockerHost);
    const image = config.sandbox.image ?? sandboxImageTag();
    if (which === 'render') {
      const images = await generateSandboxCharts({ docker, image, count: number(values.iterations, 12) });
      await benchRender({
        images,
        renderer: createRenderer(config),
        maxImageDimensionPx: config.replies.maxImageDimensionPx,
        out,
      });
      return 0;
    }
    const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-bench-'));
    try {
      if (which === 'burst') {
        await benchBurst({ docker, image, env: io.env, threads: number(values.threads, 10), dataDir, logger, out });
        return 0;
      }
      if (which === 'threads') {
        const threads = number(values.threads, 200);
        const concurrency = config.queue.concurrency;
        await benchThreads({ docker, image, limits: config.sandbox, dataDir, logger, threads, concurrency, out });
        return 0;
      }
      if (which === 'durable') {
        const samples = number(values.iterations, 5);
        await benchDurable({ docker, image, limits: config.sandbox, dataDir, logger, samples, out });
        return 0;
      }
      if (which === 'egress') {
        const requests = number(values.iterations, 200);
        await benchEgress({ docker, image, limits: config.sandbox, dataDir, logger, requests, out });
        return 0;
      }
      if (which === 'sources') {
        // The DataFrame in the thread is measured in a real sandbox of the configured runtime.
        const sandbox = oneContainerSandbox(
          { docker, image, limits: config.sandbox, dataDir, logger },
          { name: 'sources', runtime: config.sandbox.runtime },
        );
        try {
          await sandbox.start();
          const runtime = sandbox.runtime?.engineRuntime ?? config.sandbox.runtime;
          const thread = { sandbox, loadTimeoutMs: config.sandbox.timeoutMs, logger, runtime };
          await benchSources({ samples: number(values.iterations, 10), out, thread });
        } finally {
          await sandbox.close();
        }
        return 0;
      }
      if (which === 'loops') {
        const sandbox = oneContainerSandbox(
          { docker, image, limits: config.sandbox, dataDir, logger },
          { name: 'loops', runtime: config.sandbox.runtime },
        );
        try {
          await benchLoops({
            sandbox,
            settings: config.llm,
            sandboxTimeoutMs: config.sandbox.timeoutMs,
            logger,
            samples: number(values.iterations, 3),
            modelDelayMs: values['model-ms'] === undefined ? 0 : Math.max(0, Number(values['model-ms']) || 0),
            out,
          });
        } finally {
          await sandbox.close();
        }
        return 0;
      }
      if (which === 'governance') {
        const redis = config.redis.url ? undefined : await startPrivateRedis();
        try {
          const redisUrl = config.redis.url ?? redis!.url;
          const samples = number(values.iterations, 200);
          const base = { docker, image, limits: config.sandbox, dataDir, logger };
          await benchGovernance({
            sandbox: () => oneContainerSandbox(base, { name: 'governance', runtime: config.sandbox.runtime }),
            dataDir,
            logger,
            redisUrl,
            samples,
            out,
          });
        } finally {
          await redis?.stop();
        }
        return 0;
      }
      await benchSandbox({
        docker,
        image,
        limits: config.sandbox,
        dataDir,
        logger,
        renderer: createRenderer(config, logger),
        maxImageDimensionPx: config.replies.maxImageDimensionPx,
        iterations: number(values.iterations, 30),
        out,
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    return 0;
  },
};
