// The Edit action on the user's own messages: the text is edited in place and sent again; the answer
// is replaced in place when it is the thread's latest exchange, else a new answer says what was re-run.
import { el } from './render.js';

/**
 * Adds an Edit button to a rendered user message. `save(text)` sends the edit and resolves with the
 * revised message (or rejects with an Error whose message is shown under the editor).
 */
export function addEditAction(node, message, save) {
  const body = node.querySelector('.body') ?? node;
  const button = el('button', 'edit-action', 'Edit');
  button.type = 'button';
  button.title = 'Edit this message and run it again';
  button.addEventListener('click', () => {
    if (node.querySelector('.edit-box')) return;
    const box = el('div', 'edit-box');
    const area = el('textarea', 'edit-text');
    area.value = message.text;
    area.rows = Math.min(12, Math.max(2, message.text.split('\n').length));
    const saveButton = el('button', 'edit-save', 'Save and run');
    const cancel = el('button', 'edit-cancel', 'Cancel');
    const error = el('div', 'edit-error');
    saveButton.type = cancel.type = 'button';
    cancel.addEventListener('click', () => box.remove());
    saveButton.addEventListener('click', async () => {
      saveButton.disabled = true;
      error.textContent = '';
      try {
        await save(area.value);
        box.remove();
      } catch (err) {
        error.textContent = err.message;
        saveButton.disabled = false;
      }
    });
    box.append(area, saveButton, cancel, error);
    body.append(box);
    area.focus();
  });
  body.querySelector('.meta')?.append(button);
  return node;
}
