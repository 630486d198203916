import { toThreadlabError } from '../../domain/errors.js';
import type { ExecutionResult } from '../../domain/execution.js';
import type { RunRequest, Sandbox } from '../../ports/sandbox.js';
import { commonFields } from './audit-common.js';
import type { AuditLog } from './audit-log.js';
import { boundFiles, sha256Hex, type AuditRunRecord } from './audit-record.js';
import { currentAuditScope } from './audit-scope.js';

/**
 * A Sandbox that writes one audit line per run, whatever its end (a result, or the sandbox
 * throwing), and notes the files put into a thread during a job for the runs' `filesIn`. Who asked
 * comes from the job's audit scope (the Sandbox port knows no users); a run outside a job names nobody.
 */
export function auditedSandbox(inner: Sandbox, audit: AuditLog): Sandbox {
  return {
    async run(key, request) {
      const startedMs = Date.now();
      let result: ExecutionResult | undefined;
      let failure: string | undefined;
      try {
        result = await inner.run(key, request);
        return result;
      } catch (err) {
        failure = toThreadlabError(err).code;
        throw err;
      } finally {
        audit.write(runRecord({ key, request, result, failure, durationMs: Date.now() - startedMs }));
      }
    },
    async putFile(key, name, data) {
      const file = await inner.putFile(key, name, data);
      currentAuditScope()?.filesIn.push({ name: file.path, bytes: file.bytes });
      return file;
    },
    listFiles: (key) => inner.listFiles(key),
    readFile: (key, path) => inner.readFile(key, path),
    previewFiles: (key, paths, options) => inner.previewFiles(key, paths, options),
    prepare: (key) => inner.prepare(key),
    reset: (key) => inner.reset(key),
    ...(inner.recycle ? { recycle: (key: string) => inner.recycle!(key) } : {}),
    isLive: (key) => inner.isLive(key),
    environment: () => inner.environment(),
    close: () => inner.close(),
  };
}

function runRecord(o: {
  key: string;
  request: RunRequest;
  result: ExecutionResult | undefined;
  failure: string | undefined;
  durationMs: number;
}): AuditRunRecord {
  const { request, result } = o;
  const codeSha256 = sha256Hex(request.code);
  const model = currentAuditScope()?.lastModelCall;
  const byModel = !request.internal && model?.codeHashes.has(codeSha256) === true;
  const filesIn = boundFiles(currentAuditScope()?.filesIn ?? []);
  const filesOut = boundFiles((result?.artifacts ?? []).map((a) => ({ name: a.path, bytes: a.bytes })));
  const origin = request.internal ? 'system' : byModel ? 'model' : 'user';
  const source = origin === 'user' ? currentAuditScope()?.source : undefined;
  return {
    ...commonFields(o.key),
    kind: 'run',
    origin,
    ...(source ? { source: source.kind, sourceAuthor: source.author } : {}),
    language: request.language,
    codeSha256,
    codeBytes: Buffer.byteLength(request.code, 'utf8'),
    status: result?.status ?? 'sandbox_failed',
    ...(o.failure ? { errorCode: o.failure } : {}),
    durationMs: result?.durationMs ?? o.durationMs,
    tokens: byModel && model ? model.tokens : null,
    filesIn: filesIn.files,
    filesInMore: filesIn.more,
    filesOut: filesOut.files,
    filesOutMore: filesOut.more,
  };
}
