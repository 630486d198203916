import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ErrorCode } from '../domain/errors.js';
import type { ModelBehaviour } from '../domain/model-behaviour.js';
import type { EgressMetrics } from '../egress/egress-record.js';
import type { QueueObserver } from '../queue/queue-events.js';

/** What the sandbox warm pool reports (sandbox/ calls this; it never imports prom-client). */
export interface PoolMetrics {
  /** Warm containers ready to be handed to a thread. */
  size(warm: number): void;
  /** Containers held by threads right now. */
  sessions(active: number): void;
  /** A thread got a warm container. */
  hit(): void;
  /** A thread had to wait for a cold start. */
  miss(): void;
  /** A Python kernel was replaced by a lean one: an idle thread's, or a pooled container's whose priming aged out. */
  leanKernel(where: 'thread' | 'pool'): void;
  /** A thread's container was retired after a run because gVisor's host tasks swelled past half their limit. */
  renewed(reason: 'host_tasks'): void;
}

/** What the LLM client reports after each call. */
export interface LlmMetrics {
  tokens(counts: { prompt: number; completion: number }): void;
  /** A turn in which the model did `kind` (see ModelBehaviour), by model. */
  behaviour(kind: ModelBehaviour, model: string): void;
}

export interface ThreadlabMetrics {
  registry: Registry;
  /** Pass as `observer` to InProcessJobQueue / BullMqJobQueue. */
  queue: QueueObserver;
  pool: PoolMetrics;
  llm: LlmMetrics;
  /** Pass as `metrics` to EgressGateway. */
  egress: EgressMetrics;
  /** Counts an infrastructure or policy failure by its stable code (logged once, at a boundary). */
  error(code: ErrorCode): void;
  /** A reader's 👍 (`good`) or 👎 (`bad`) on an answer of `model`: a new verdict, or a changed one. */
  feedback(verdict: 'good' | 'bad', model: string): void;
}

export interface CreateMetricsOptions {
  /** Also collect Node process metrics (CPU, memory, event loop lag). @defaultValue true */
  defaultMetrics?: boolean;
  /** Added as a `role` label to every metric (all, gateway, worker). @defaultValue 'all' */
  role?: string;
}

const SECONDS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** A fresh Prometheus registry with Threadlab's metrics (a new one per call, so tests do not clash). */
export function createMetrics(options: CreateMetricsOptions = {}): ThreadlabMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ role: options.role ?? 'all' });
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'threadlab_' });
  const registers = [registry];

  const depth = new Gauge({
    name: 'threadlab_queue_depth',
    help: 'Jobs waiting or running, as last seen by this process',
    registers,
  });
  const parked = new Gauge({
    name: 'threadlab_queue_parked',
    help: 'Turns of this worker waiting on a person (an approval) with their slot let go',
    registers,
  });
  const wait = new Histogram({
    name: 'threadlab_queue_wait_seconds',
    help: 'Time from enqueue to start of a job',
    buckets: SECONDS,
    registers,
  });
  const duration = new Histogram({
    name: 'threadlab_job_duration_seconds',
    help: 'Time a job ran, by outcome (ok, error, cancelled)',
    labelNames: ['outcome'] as const,
    buckets: SECONDS,
    registers,
  });
  const poolSize = new Gauge({ name: 'threadlab_sandbox_pool_size', help: 'Warm sandbox containers ready', registers });
  const poolSessions = new Gauge({
    name: 'threadlab_sandbox_sessions',
    help: 'Sandbox containers held by threads',
    registers,
  });
  const poolRequests = new Counter({
    name: 'threadlab_sandbox_pool_requests_total',
    help: 'Sandbox requests served from the warm pool (hit) or by a cold start (miss)',
    labelNames: ['result'] as const,
    registers,
  });
  const leanKernels = new Counter({
    name: 'threadlab_sandbox_kernels_made_lean_total',
    help: 'Python kernels replaced by lean ones to free memory: idle threads (thread), pooled containers whose priming aged out (pool)',
    labelNames: ['where'] as const,
    registers,
  });
  const renewals = new Counter({
    name: 'threadlab_sandbox_renewals_total',
    help: "Threads' containers retired after a run and replaced, variables saved and files kept: gVisor host tasks past half their limit (host_tasks)",
    labelNames: ['reason'] as const,
    registers,
  });
  const tokens = new Counter({
    name: 'threadlab_llm_tokens_total',
    help: 'LLM tokens used, by kind',
    labelNames: ['kind'] as const,
    registers,
  });
  const behaviours = new Counter({
    name: 'threadlab_model_behaviour_total',
    help: 'Turns in which the model did something the loop handled (repeated_failure, loop_stopped, tool_renamed, raw_arguments, unknown_tool, narration, empty_answer, context_shortened…), by kind and model',
    labelNames: ['kind', 'model'] as const,
    registers,
  });
  const egressRequests = new Counter({
    name: 'threadlab_egress_requests_total',
    help: 'Requests from sandboxes through the egress gateway, by verdict (allowed, denied, failed, cut)',
    labelNames: ['verdict'] as const,
    registers,
  });
  const egressBytes = new Counter({
    name: 'threadlab_egress_bytes_total',
    help: 'Bytes the egress gateway forwarded, up (to destinations) and down (from them)',
    labelNames: ['direction'] as const,
    registers,
  });
  const feedback = new Counter({
    name: 'threadlab_feedback_total',
    help: "Readers' verdicts on the model's answers (good, bad), by the model that wrote the answer; a changed verdict counts its new one",
    labelNames: ['verdict', 'model'] as const,
    registers,
  });
  const errors = new Counter({
    name: 'threadlab_errors_total',
    help: 'Failures by stable error code',
    labelNames: ['code'] as const,
    registers,
  });

  return {
    registry,
    queue: {
      depth: (jobs) => depth.set(jobs),
      started: (waitMs) => wait.observe(Math.max(0, waitMs) / 1000),
      finished: (durationMs, outcome) => duration.observe({ outcome }, Math.max(0, durationMs) / 1000),
      parked: (jobs) => parked.set(jobs),
    },
    pool: {
      size: (warm) => poolSize.set(warm),
      sessions: (active) => poolSessions.set(active),
      hit: () => poolRequests.inc({ result: 'hit' }),
      miss: () => poolRequests.inc({ result: 'miss' }),
      leanKernel: (where) => leanKernels.inc({ where }),
      renewed: (reason) => renewals.inc({ reason }),
    },
    llm: {
      tokens: ({ prompt, completion }) => {
        if (prompt > 0) tokens.inc({ kind: 'prompt' }, prompt);
        if (completion > 0) tokens.inc({ kind: 'completion' }, completion);
      },
      behaviour: (kind, model) => behaviours.inc({ kind, model }),
    },
    egress: {
      request: (verdict) => egressRequests.inc({ verdict }),
      bytes: (direction, bytes) => egressBytes.inc({ direction }, bytes),
    },
    error: (code) => errors.inc({ code }),
    feedback: (verdict, model) => feedback.inc({ verdict, model }),
  };
}
