import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/** How many of the slowest files the summary lists. */
const SLOWEST_FILES = 25;

interface FileTiming {
  project: string;
  file: string;
  startMs: number;
  endMs: number;
}

/**
 * Prints, after the default reporter's output, each project's wall time (first file started to last
 * file ended) and file count, then the slowest files. A file's duration is its wall time from start to
 * end (collection, hooks and tests), which is what a slow file costs the run.
 */
export default class TimingReporter implements Reporter {
  private readonly started = new Map<string, number>();
  private readonly files: FileTiming[] = [];
  private runStartMs = Date.now();

  onTestRunStart(): void {
    this.runStartMs = Date.now();
  }

  onTestModuleStart(module: TestModule): void {
    this.started.set(module.id, Date.now());
  }

  onTestModuleEnd(module: TestModule): void {
    const endMs = Date.now();
    this.files.push({
      project: module.project.name,
      file: module.relativeModuleId,
      startMs: this.started.get(module.id) ?? endMs - module.diagnostic().duration,
      endMs,
    });
  }

  onTestRunEnd(): void {
    if (this.files.length === 0) return;
    process.stdout.write(`\n${timingSummary(this.files, Date.now() - this.runStartMs)}\n`);
    // Every file's start and end (ms from the run's start), for a look at how the run was laid out.
    const out = process.env.THREADLAB_TEST_TIMING_FILE;
    if (out) {
      const rows = this.files.map((f) => ({
        ...f,
        startMs: f.startMs - this.runStartMs,
        endMs: f.endMs - this.runStartMs,
      }));
      writeFileSync(out, JSON.stringify(rows.sort((a, b) => a.startMs - b.startMs)));
    }
  }
}

function timingSummary(files: FileTiming[], totalMs: number): string {
  const projects = new Map<string, FileTiming[]>();
  for (const f of files) projects.set(f.project, [...(projects.get(f.project) ?? []), f]);
  const lines = [`Timing by project (whole run ${seconds(totalMs)}):`];
  for (const [name, list] of projects) {
    const wallMs = Math.max(...list.map((f) => f.endMs)) - Math.min(...list.map((f) => f.startMs));
    // The files' own times added up: against the wall time, how well the project's files overlapped.
    const busyMs = list.reduce((sum, f) => sum + f.endMs - f.startMs, 0);
    lines.push(
      `  ${name.padEnd(18)} ${seconds(wallMs).padStart(8)}  ${String(list.length).padStart(4)} files, ${seconds(busyMs)} of file time`,
    );
  }
  lines.push(`Slowest ${Math.min(SLOWEST_FILES, files.length)} files:`);
  const slowest = [...files].sort((a, b) => b.endMs - b.startMs - (a.endMs - a.startMs)).slice(0, SLOWEST_FILES);
  for (const f of slowest)
    lines.push(`  ${seconds(f.endMs - f.startMs).padStart(8)}  ${f.project.padEnd(18)} ${f.file}`);
  return lines.join('\n');
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
