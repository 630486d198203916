import type Docker from 'dockerode';
import type { Logger } from '../../src/logger.js';
import type { SandboxLimits, SandboxRuntime } from '../../app/sandbox-kit.js';
import { benchRuntimes } from './bench-runtimes.js';
import { benchEgressOverhead, type OverheadRow } from './egress-overhead.js';
import { benchSandboxPath, type SandboxPathRow } from './egress-sandbox-path.js';

export interface EgressBenchOptions {
  docker: Docker;
  image: string;
  limits: SandboxLimits;
  dataDir: string;
  logger: Logger;
  /** Requests per measurement and side. @defaultValue 200 */
  requests?: number;
  /** The runtimes of the sandbox path. @defaultValue runc, and runsc when the engine has it */
  runtimes?: SandboxRuntime[];
  /** Receives each line of the report. */
  out: (line: string) => void;
}

export interface EgressBenchReport {
  /** (a) The gateway alone, on loopback sockets: absolute-form GET and CONNECT + GET. */
  gateway: OverheadRow[];
  /** (b) The whole path from code in a sandbox, one row per runtime, runc first. */
  sandbox: SandboxPathRow[];
  /** Why runsc was not measured, when it was not. */
  runscSkipped?: string;
}

const ms = (n: number) => n.toFixed(2).padStart(9);

/**
 * `threadlab bench egress`: the gateway's own overhead and the whole path from a sandbox (relay and gateway) to a
 * loopback server, each against the same requests made directly, side by side.
 */
export async function benchEgress(options: EgressBenchOptions): Promise<EgressBenchReport> {
  const { out } = options;
  const requests = options.requests ?? 200;
  const { runtimes, runscSkipped } = await benchRuntimes(options.docker, options.runtimes);
  out(`threadlab egress bench: ${requests} small GETs per side, each on a new connection, loopback server`);
  const gateway = await benchEgressOverhead({ requests });
  const sandbox: SandboxPathRow[] = [];
  for (const runtime of runtimes) sandbox.push(await benchSandboxPath({ ...options, runtime, requests }));
  const report: EgressBenchReport = { gateway, sandbox, ...(runscSkipped ? { runscSkipped } : {}) };
  printEgressReport(report, out);
  return report;
}

function printEgressReport(report: EgressBenchReport, out: (line: string) => void): void {
  out(`${'median ms'.padEnd(58)}${'direct'.padStart(9)}${'egress'.padStart(9)}${'added'.padStart(9)}`);
  for (const row of report.gateway)
    out(`${`(a) gateway alone, ${row.kind}`.padEnd(58)}${ms(row.directMs)}${ms(row.gatewayMs)}${ms(row.overheadMs)}`);
  for (const row of report.sandbox)
    out(
      `${`(b) from a sandbox (${row.runtime}), urllib GET, relay + gateway`.padEnd(58)}` +
        `${ms(row.directMs)}${ms(row.sandboxMs)}${ms(row.overheadMs)}   ${row.requests}/${row.requests} ok`,
    );
  if (report.runscSkipped) out(`runsc: skipped, ${report.runscSkipped}`);
  out(
    '(b) "direct" is the bot process\'s own GET of the same server: the sandbox has no direct path (no network ' +
      'interface, no route), so "added" is the full cost of egress to code in a thread',
  );
}
