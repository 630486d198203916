import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The process's open-file limit (RLIMIT_NOFILE): the soft one applies, the hard one is its ceiling. */
export interface OpenFileLimit {
  soft: number;
  hard: number;
}

/**
 * Reads this process's open-file limit: /proc/self/limits on Linux, else a child shell's `ulimit` (a
 * child inherits the limit). Undefined when neither tells ("unlimited" counts as no limit).
 */
export function readOpenFileLimit(): OpenFileLimit | undefined {
  return fromProc() ?? fromShell();
}

function fromProc(): OpenFileLimit | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const [soft, hard] = (line ?? '').split(/\s{2,}/).slice(1, 3);
    return parsed(soft, hard);
  } catch {
    return undefined;
  }
}

function fromShell(): OpenFileLimit | undefined {
  try {
    const out = execFileSync('sh', ['-c', 'ulimit -Sn; ulimit -Hn'], { encoding: 'utf8', timeout: 2000 });
    const [soft, hard] = out.trim().split(/\s+/);
    return parsed(soft, hard);
  } catch {
    return undefined;
  }
}

function parsed(soft: string | undefined, hard: string | undefined): OpenFileLimit | undefined {
  const value = (v: string | undefined): number =>
    v === 'unlimited' ? Number.POSITIVE_INFINITY : /^\d+$/.test(v ?? '') ? Number(v) : Number.NaN;
  const limit = { soft: value(soft), hard: value(hard) };
  return Number.isNaN(limit.soft) || Number.isNaN(limit.hard) ? undefined : limit;
}
