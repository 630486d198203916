import { describe, expect, it } from 'vitest';
import type { AuditLog } from '../../../src/governance/audit/audit-log.js';
import { auditedLlm } from '../../../src/governance/audit/audited-llm.js';
import { ScriptedLlm } from '../../fakes/scripted-llm.js';

class WindowedLlm extends ScriptedLlm {
  contextWindow(): Promise<number | undefined> {
    return Promise.resolve(4096);
  }
}

describe('auditedLlm and the context window', () => {
  // The shipped product wraps its client in auditedLlm: without this, no window reached the loop.
  it("passes the inner client's context window through, and offers none when the inner has none", async () => {
    const audit = { write: () => undefined } as unknown as AuditLog;
    expect(await auditedLlm(new WindowedLlm(), audit).contextWindow?.()).toBe(4096);
    expect(auditedLlm(new ScriptedLlm(), audit).contextWindow).toBeUndefined();
  });
});
