import { createHash } from 'node:crypto';
import type { InboundMessage } from '../../src/domain/messages.js';

/**
 * Marks the InboundMessage of an edited Discord message as an edit of the original: the original's id
 * becomes `edit.originalId`, and the edit gets an id of its own (its edit time and text), so a
 * redelivered MESSAGE_UPDATE runs once and a different edit runs again, even within one millisecond. Pure.
 */
export function editOf(inbound: InboundMessage, editedAtMs: number, previousText?: string): InboundMessage {
  return {
    ...inbound,
    id: `${inbound.id}:edit:${editedAtMs}:${createHash('sha256').update(inbound.text).digest('hex').slice(0, 12)}`,
    edit: { originalId: inbound.id, ...(previousText !== undefined ? { previousText } : {}) },
  };
}
