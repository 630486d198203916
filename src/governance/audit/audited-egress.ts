import type { EgressPort, EgressRunBudget } from '../../ports/egress.js';
import { currentAuditScope } from './audit-scope.js';

/**
 * The egress port with each connection's user taken from the audit scope of the run that opened it, for
 * the egress audit line: the Sandbox port knows no users, and the sandbox hands a run's connections on in
 * that run's async context. A connection of a run outside a job (CLI exec) names nobody.
 */
export function auditedEgress<Budget extends EgressRunBudget>(inner: EgressPort<Budget>): EgressPort<Budget> {
  return {
    newBudget: (timeoutMs) => inner.newBudget(timeoutMs),
    describe: () => inner.describe(),
    handle(client, context, budget) {
      const user = currentAuditScope()?.user ?? undefined;
      return inner.handle(client, user === undefined ? context : { ...context, user }, budget);
    },
  };
}
