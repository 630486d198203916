import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { writeZip } from '../../src/replies/zip.js';

/** The one package the fake index holds: `pip install threadlab-probe` gives `import threadlab_probe`. */
export const PROBE = { project: 'threadlab-probe', module: 'threadlab_probe', version: '1.0', value: 42 } as const;

function recordHash(data: Buffer): string {
  return `sha256=${createHash('sha256').update(data).digest('base64url')}`;
}

/** Builds a real, installable pure-Python wheel of {@link PROBE} (PEP 427: the files, METADATA, WHEEL, RECORD). */
export async function buildProbeWheel(): Promise<{ name: string; data: Buffer }> {
  const dist = `${PROBE.module}-${PROBE.version}.dist-info`;
  const files: [string, Buffer][] = [
    [`${PROBE.module}/__init__.py`, Buffer.from(`VALUE = ${PROBE.value}\n`)],
    [
      `${dist}/METADATA`,
      Buffer.from(`Metadata-Version: 2.1\nName: ${PROBE.project}\nVersion: ${PROBE.version}\nSummary: probe\n`),
    ],
    [
      `${dist}/WHEEL`,
      Buffer.from('Wheel-Version: 1.0\nGenerator: threadlab-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n'),
    ],
  ];
  const record = [...files.map(([path, data]) => `${path},${recordHash(data)},${data.length}`), `${dist}/RECORD,,`]
    .join('\n')
    .concat('\n');
  const entries = [...files, [`${dist}/RECORD`, Buffer.from(record)] as [string, Buffer]].map(([name, data]) => ({
    name,
    data,
  }));
  return { name: `${PROBE.module}-${PROBE.version}-py3-none-any.whl`, data: await writeZip(entries) };
}

/**
 * A PEP 503 "simple" package index on 127.0.0.1 holding one wheel, for pip in the sandbox through the egress
 * gateway. Records each request's path (the tests check what reached it).
 */
export class FakePackageIndex {
  readonly requests: string[] = [];
  private server: Server | undefined;
  private wheel: { name: string; data: Buffer } | undefined;

  async start(): Promise<number> {
    this.wheel = await buildProbeWheel();
    this.server = createServer((req, res) => this.serve(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this.port;
  }

  get port(): number {
    return (this.server!.address() as { port: number }).port;
  }

  /** The index URL for `pip install --index-url`. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/simple/`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    // Through a proxy the request line may carry the absolute URL; the path is what matters here.
    const path = new URL(req.url ?? '/', 'http://index').pathname;
    this.requests.push(path);
    const wheel = this.wheel!;
    if (path === '/simple/' || path === `/simple/${PROBE.project}/`) {
      const digest = createHash('sha256').update(wheel.data).digest('hex');
      const body =
        path === '/simple/'
          ? `<!DOCTYPE html><html><body><a href="/simple/${PROBE.project}/">${PROBE.project}</a></body></html>`
          : `<!DOCTYPE html><html><body><a href="/files/${wheel.name}#sha256=${digest}">${wheel.name}</a></body></html>`;
      res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      return;
    }
    if (path === `/files/${wheel.name}`) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': wheel.data.length });
      res.end(wheel.data);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }
}
