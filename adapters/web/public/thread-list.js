// The sidebar's list of threads, newest first as the server gives them; the open one marked, busy ones dotted.
import { el } from './render.js';

/** Draws `threads` into `list`, marking the one whose id is `currentId`. */
export function renderThreadList(list, threads, currentId) {
  list.replaceChildren();
  for (const thread of threads) {
    const item = el('a', `thread-item${thread.id === currentId ? ' active' : ''}`);
    item.href = `#/t/${thread.id}`;
    item.dataset.id = thread.id;
    item.append(el('span', 'thread-title', thread.title || 'Untitled thread'));
    item.append(el('span', 'thread-time', new Date(thread.updatedAtMs).toLocaleString()));
    if (thread.busy) item.classList.add('busy');
    list.append(item);
  }
}
