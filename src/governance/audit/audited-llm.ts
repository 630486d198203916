import { toThreadlabError } from '../../domain/errors.js';
import type { LlmClient, LlmResponse } from '../../ports/llm-client.js';
import { commonFields } from './audit-common.js';
import type { AuditLog } from './audit-log.js';
import { sha256Hex } from './audit-record.js';
import { currentAuditScope } from './audit-scope.js';

/**
 * A chat model client that writes one audit line per call (answered, failed after retries, or
 * cancelled), and tells the job's audit scope which code the call asked to run, so the run lines
 * say the model wrote it and carry the call's tokens.
 */
export function auditedLlm(inner: LlmClient, audit: AuditLog): LlmClient {
  return {
    get model() {
      return inner.model;
    },
    get acceptsImages() {
      return inner.acceptsImages;
    },
    // The window is the inner client's to learn (a probe, not a model call: nothing to audit).
    ...(inner.contextWindow ? { contextWindow: (options) => inner.contextWindow!(options) } : {}),
    async complete(request) {
      const startedMs = Date.now();
      const thread = currentAuditScope()?.thread ?? null;
      let response: LlmResponse | undefined;
      let errorCode: string | undefined;
      try {
        response = await inner.complete(request);
        return response;
      } catch (err) {
        errorCode = toThreadlabError(err).code;
        throw err;
      } finally {
        const tokens = {
          prompt: response?.usage.promptTokens ?? 0,
          completion: response?.usage.completionTokens ?? 0,
        };
        const scope = currentAuditScope();
        if (scope && response) scope.lastModelCall = { tokens, codeHashes: codeHashesOf(response) };
        audit.write({
          ...commonFields(thread),
          kind: 'model_call',
          model: inner.model,
          status: response ? 'ok' : request.signal?.aborted ? 'cancelled' : 'failed',
          ...(errorCode ? { errorCode } : {}),
          durationMs: Date.now() - startedMs,
          tokens,
          toolCalls: response?.toolCalls.length ?? 0,
          finishReason: response?.finishReason ?? null,
        });
      }
    },
  };
}

/** SHA-256 of the `code` argument of each tool call that has one (malformed calls run nothing). */
function codeHashesOf(response: LlmResponse): Set<string> {
  const hashes = new Set<string>();
  for (const call of response.toolCalls) {
    try {
      const args = JSON.parse(call.arguments) as { code?: unknown };
      if (typeof args.code === 'string') hashes.add(sha256Hex(args.code));
    } catch {
      // A malformed call runs nothing, so no run line will look for it.
    }
  }
  return hashes;
}
