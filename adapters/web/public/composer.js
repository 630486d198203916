// The message box: text, files from the picker or dropped anywhere on the thread, send on Enter.
import { el, formatBytes } from './render.js';

/**
 * Wires the composer. `onSend(text, files)` returns a promise; the box is cleared when it resolves
 * and the error shown when it rejects.
 */
export function setupComposer({ onSend, maxUploadBytes }) {
  const form = document.getElementById('composer');
  const textarea = document.getElementById('text');
  const input = document.getElementById('file-input');
  const pendingBox = document.getElementById('pending-files');
  const errorBox = document.getElementById('composer-error');
  const overlay = document.getElementById('drop-overlay');
  const sendButton = document.getElementById('send');
  let pending = [];

  const showError = (text) => {
    errorBox.textContent = text;
  };

  const renderPending = () => {
    pendingBox.replaceChildren();
    pending.forEach((file, index) => {
      const chip = el('span', 'chip pending');
      chip.append(el('span', 'file-name', file.name), el('span', 'file-size', formatBytes(file.size)));
      const remove = el('button', 'remove', '×');
      remove.type = 'button';
      remove.title = `Remove ${file.name}`;
      remove.addEventListener('click', () => {
        pending.splice(index, 1);
        renderPending();
      });
      chip.append(remove);
      pendingBox.append(chip);
    });
  };

  const addFiles = (files) => {
    for (const file of files) {
      if (maxUploadBytes && file.size > maxUploadBytes) {
        showError(`${file.name} is ${formatBytes(file.size)}; the limit is ${formatBytes(maxUploadBytes)}.`);
        continue;
      }
      pending.push(file);
    }
    renderPending();
    textarea.focus();
  };

  input.addEventListener('change', () => {
    addFiles([...input.files]);
    input.value = '';
  });

  let dragDepth = 0;
  const hasFiles = (e) => [...(e.dataTransfer?.types ?? [])].includes('Files');
  document.addEventListener('dragenter', (e) => {
    if (!hasFiles(e)) return;
    dragDepth++;
    overlay.hidden = false;
  });
  document.addEventListener('dragleave', () => {
    dragDepth = Math.max(0, dragDepth - 1);
    if (dragDepth === 0) overlay.hidden = true;
  });
  document.addEventListener('dragover', (e) => {
    if (hasFiles(e)) e.preventDefault();
  });
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    dragDepth = 0;
    overlay.hidden = true;
    if (e.dataTransfer?.files?.length) addFiles([...e.dataTransfer.files]);
  });

  const submit = async () => {
    const text = textarea.value;
    if (!text.trim() && pending.length === 0) return;
    sendButton.disabled = true;
    showError('');
    try {
      await onSend(text, pending);
      textarea.value = '';
      pending = [];
      renderPending();
    } catch (err) {
      showError(err.message);
    } finally {
      sendButton.disabled = false;
      textarea.focus();
    }
  };

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void submit();
  });
  textarea.addEventListener('keydown', (e) => {
    // inside an unclosed ``` fence, Enter is a new line: code is typed, not sent
    const inFence = (textarea.value.slice(0, textarea.selectionStart).match(/```/g) ?? []).length % 2 === 1;
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && !inFence) {
      e.preventDefault();
      void submit();
    }
  });
}
