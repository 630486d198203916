import type { OutputSource } from '../../src/verify/figure.js';

/** A deterministic pseudo-random source (mulberry32), so every bench run checks the same text. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One printed line of a run, the way pandas and print() write numbers. */
function outputLine(i: number, next: () => number): string {
  const mean = (next() * 1000).toFixed(4);
  const share = next().toFixed(4);
  const count = Math.floor(next() * 100_000);
  const p = (next() / 1000).toExponential(3);
  return `group ${i}: mean=${mean} share=${share} n=${count} p=${p} delta=${(next() * 200 - 100).toFixed(2)}`;
}

/** Runs' output of at most `chars` characters, as stdout, a result, a table and a file read back in turn. */
export function sampleOutputs(chars: number, seed = 1): OutputSource[] {
  const next = random(seed);
  const lines: string[] = [];
  for (let size = 0; ;) {
    const line = outputLine(lines.length, next);
    if (size + line.length + 1 > chars) break;
    lines.push(line);
    size += line.length + 1;
  }
  const kinds: OutputSource['kind'][] = ['stdout', 'result', 'table', 'file'];
  const perSource = Math.ceil(lines.length / kinds.length);
  return kinds.map((kind, s) => ({
    run: s + 1,
    kind,
    text: lines
      .slice(s * perSource, (s + 1) * perSource)
      .map((l) => `${l}\n`)
      .join(''),
  }));
}

/**
 * An answer of about `chars` characters stating figures the way a model does: most taken from `outputs`
 * (rounded to fewer decimals, as percentages, in a Markdown table), and one in eight invented.
 */
export function sampleAnswer(outputs: OutputSource[], chars: number, seed = 2): string {
  const next = random(seed);
  const printed = outputs.flatMap((o) => [...o.text.matchAll(/mean=([\d.]+) share=([\d.]+) n=(\d+)/g)]);
  const parts: string[] = ['## Findings\n'];
  let size = parts[0]!.length;
  for (let i = 0; size < chars; i++) {
    const m = printed[Math.floor(next() * printed.length)]!;
    const invented = i % 8 === 7;
    const mean = invented ? (next() * 1000 + 1000).toFixed(2) : Number(m[1]).toFixed(2);
    const share = (Number(m[2]) * 100).toFixed(1);
    const count = Number(m[3]).toLocaleString('en-US');
    const text =
      i % 5 === 4
        ? `| group ${i} | ${mean} | ${share}% | ${count} |\n`
        : `Group ${i} has a mean of ${mean} over ${count} rows, a share of ${share} % of the total, in line with the rest of the data. `;
    parts.push(text);
    size += text.length;
  }
  return parts.join('');
}
