import type { DockerSandbox } from '../../app/sandbox-kit.js';
import type { Language } from '../../src/domain/execution.js';
import { stats, time, type BenchStats } from './bench-stats.js';

/** (i) R and JavaScript in a warm thread: the first run (the session starts) and the runs after it. */
export interface LanguageBench {
  language: 'r' | 'javascript';
  first: BenchStats;
  later: BenchStats;
}

const PROBES: Record<'r' | 'javascript', { code: string; expect: string }> = {
  r: { code: 'x <- 6 * 7\ncat(x, "\\n")', expect: '42' },
  javascript: { code: 'var x = 6 * 7; console.log(x)', expect: '42' },
};

async function checkedRun(sandbox: DockerSandbox, key: string, language: Language, code: string, expect: string) {
  const result = await sandbox.run(key, { language, code });
  if (result.status !== 'ok' || !result.stdout.includes(expect)) {
    throw new Error(`bench ${language} run failed: ${result.error?.value ?? (result.stdout || result.status)}`);
  }
}

/**
 * Times each language the image has: `slow` threads, each warmed by a Python run first (as a thread in use is),
 * then its first run in the language (the session starting is part of it), then `iterations` later runs in
 * the first of those threads. Every run's output is checked. Languages the image lacks are left out.
 */
export async function benchLanguages(
  sandbox: DockerSandbox,
  options: { iterations: number; slow: number },
): Promise<LanguageBench[]> {
  const installed = (await sandbox.environment()).languages ?? {};
  const measured: LanguageBench[] = [];
  for (const language of ['r', 'javascript'] as const) {
    if (!installed[language]) continue;
    const probe = PROBES[language];
    const key = (i: number) => `bench-${language}-${i}`;
    const first: number[] = [];
    for (let i = 0; i < options.slow; i++) {
      await checkedRun(sandbox, key(i), 'python', 'print(1)', '1'); // a thread in use, outside the time
      const started = performance.now();
      await checkedRun(sandbox, key(i), language, probe.code, probe.expect);
      first.push(performance.now() - started);
    }
    const later = await time(options.iterations, () => checkedRun(sandbox, key(0), language, probe.code, probe.expect));
    for (let i = 0; i < options.slow; i++) await sandbox.reset(key(i));
    measured.push({ language, first: stats(first), later: stats(later) });
  }
  return measured;
}
