// The web chat page: thread list, one open thread with its live event stream, composer, lightbox.
import { api, subscribe } from './api-client.js';
import { setupComposer } from './composer.js';
import { addEditAction } from './edit.js';
import { ApprovalCards } from './approval.js';
import { setupDrawer } from './drawer.js';
import { setupLightbox } from './lightbox.js';
import { ProgressView } from './progress.js';
import { el, renderMessage } from './render.js';
import { showSources } from './sources-badge.js';
import { renderThreadList } from './thread-list.js';

const $ = (id) => document.getElementById(id);
const messagesBox = $('messages');
const statusBox = $('status');
const state = { threads: [], current: null, unsubscribe: null, rendered: new Set(), busy: false, stopping: false };

function setStatus(text, kind = '') {
  statusBox.textContent = text;
  statusBox.className = `status ${kind}`;
}

// A request the page made on its own (the thread list, a thread's history) that failed is shown where the
// page shows every status, never left as an uncaught error.
window.addEventListener('unhandledrejection', (event) => {
  event.preventDefault();
  setStatus(event.reason instanceof Error ? event.reason.message : String(event.reason), 'error');
});

const progress = new ProgressView(messagesBox, (text) => setStatus(text, 'working'));
const approvals = new ApprovalCards(messagesBox, {
  decide: (approvalId, action) => api.decide(state.current, approvalId, action),
  onError: (text) => setStatus(text, 'error'),
});

function setBusy(busy) {
  state.busy = busy;
  $('stop').disabled = !busy || !state.current;
  document.body.classList.toggle('busy', busy);
}

function scrollToEnd() {
  messagesBox.scrollTop = messagesBox.scrollHeight;
}

/** A message as an element; the user's own messages (not commands) get the Edit action. */
function renderWithActions(message) {
  const node = renderMessage(message);
  if (message.role !== 'user' || message.command) return node;
  return addEditAction(node, message, async (text) => {
    // Not marked busy here: an edit the core ignores (a message it never answered) starts no job, and
    // the job's own progress events mark the thread busy when it runs.
    state.stopping = false;
    const { message: revised, unchanged } = await api.editMessage(state.current, message.id, text);
    if (unchanged) setStatus('Nothing changed.');
    else {
      setStatus('Edit sent.');
      appendMessage(revised);
    }
  });
}

function appendMessage(message) {
  if (state.rendered.has(message.id)) {
    // A revision (an edited message, a re-run's answer) replaces the message where it stands.
    const old = [...messagesBox.querySelectorAll('article.msg')].find((n) => n.dataset.id === message.id);
    if (old && message.revisedAtMs) old.replaceWith(renderWithActions(message));
    return;
  }
  state.rendered.add(message.id);
  $('empty').hidden = true;
  const node = renderWithActions(message);
  // keep the live block last while a job runs
  if (progress.node && message.role === 'user') messagesBox.insertBefore(node, progress.node);
  else messagesBox.append(node);
  scrollToEnd();
}

async function refreshThreads() {
  state.threads = await api.listThreads();
  renderThreadList($('thread-list'), state.threads, state.current);
  const current = state.threads.find((t) => t.id === state.current);
  $('thread-title').textContent = current ? current.title || 'Untitled thread' : 'New thread';
}

function finishJob() {
  progress.clear();
  setBusy(false);
  if (state.stopping) setStatus('Stopped', 'stopped');
  else if (!statusBox.classList.contains('error')) setStatus('Done', 'done');
  state.stopping = false;
}

async function loadMessages(threadId) {
  const page = await api.messages(threadId);
  if (state.current !== threadId) return;
  for (const message of page.messages) appendMessage(message);
  showEarlier(threadId, page);
}

async function loadApprovals(threadId) {
  // The thread may have been left (or deleted) while its messages loaded: asking for it then is a 404.
  if (state.current !== threadId) return;
  const waiting = await api.approvals(threadId).catch(() => []);
  if (state.current !== threadId) return;
  for (const view of waiting) approvals.show(view);
}

// The history comes a page at a time: a button above the oldest message shown loads the page before it.
function showEarlier(threadId, page) {
  messagesBox.querySelector('.load-earlier')?.remove();
  if (!page.hasMore || !page.before) return;
  const button = el('button', 'load-earlier', 'Load earlier messages');
  button.type = 'button';
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const earlier = await api.messages(threadId, page.before);
      if (state.current !== threadId) return;
      const fromBottom = messagesBox.scrollHeight - messagesBox.scrollTop;
      const anchor = button.nextSibling;
      for (const message of earlier.messages) {
        if (state.rendered.has(message.id)) continue;
        state.rendered.add(message.id);
        messagesBox.insertBefore(renderMessage(message), anchor);
      }
      messagesBox.scrollTop = messagesBox.scrollHeight - fromBottom;
      showEarlier(threadId, earlier);
    } catch (err) {
      button.disabled = false;
      setStatus(err.message, 'error');
    }
  });
  messagesBox.querySelector('article.msg')?.before(button);
}

function clearView() {
  progress.clear();
  approvals.clear();
  messagesBox.querySelectorAll('article.approval').forEach((n) => n.remove());
  messagesBox.querySelectorAll('article.msg, .load-earlier').forEach((n) => n.remove());
  state.rendered.clear();
  $('empty').hidden = false;
}

function openThread(threadId) {
  state.unsubscribe?.();
  state.unsubscribe = null;
  state.current = threadId;
  state.stopping = false;
  clearView();
  setStatus('');
  setBusy(false);
  for (const id of ['reset', 'delete', 'files']) $(id).disabled = !threadId;
  renderThreadList($('thread-list'), state.threads, state.current);
  if (!threadId) return void ($('thread-title').textContent = 'New thread');
  let loaded = false;
  state.unsubscribe = subscribe(threadId, {
    state: (s) => {
      setBusy(s.busy);
      if (s.busy) progress.setLabel('Working…');
      else if (progress.node) finishJob(); // the job ended while the stream was down
      if (!loaded) {
        loaded = true;
        void loadMessages(threadId).then(() => loadApprovals(threadId));
      }
    },
    resync: () => {
      clearView();
      void loadMessages(threadId);
    },
    message: (m) => appendMessage(m),
    progress: (event) => {
      setBusy(true);
      progress.update(event);
      scrollToEnd();
      if (event.type === 'error') setStatus(event.message, 'error');
    },
    stopping: () => {
      state.stopping = true;
      if (state.busy) progress.setLabel('Stopping…');
      setStatus('Stopping…', 'working');
    },
    reply: (m) => {
      const hadProgress = progress.node !== null;
      progress.clear();
      appendMessage(m);
      // a refusal or a stop notice comes without a job, hence without an idle event
      if (!hadProgress) finishJob();
      if (m.kind === 'error') setStatus('Failed', 'error');
      void refreshThreads();
    },
    idle: () => finishJob(),
    approval: (view) => {
      approvals.show(view);
      if (state.busy) progress.setLabel('Waiting for Run or Skip…');
      scrollToEnd();
    },
    approval_settled: (settled) => approvals.settle(settled),
  });
  void refreshThreads();
}

async function ensureThread() {
  if (state.current) return state.current;
  const thread = await api.createThread();
  state.threads.unshift(thread);
  location.hash = `#/t/${thread.id}`;
  openThread(thread.id);
  return thread.id;
}

/** "+ New thread": an empty composer; the thread itself is created by its first message (ensureThread). */
function startNewThread() {
  if (state.current) {
    window.history.pushState(null, '', location.pathname + location.search);
    openThread(null);
  }
  $('text').focus();
}

/**
 * Sends a message to the open thread, or to a new one made for it. A thread made for a message the server
 * then refused (a limit, a file too large) is removed again, so no empty thread is left behind.
 */
async function post(text, files) {
  const created = !state.current;
  const threadId = await ensureThread();
  // busy before the POST: the reply's events may arrive before its response does
  state.stopping = false;
  setBusy(true);
  setStatus('Sending…', 'working');
  try {
    const sent = await api.send(threadId, text, files);
    // The page may have moved to another thread while the message was sent: it is drawn only in its own.
    if (state.current === threadId) appendMessage(sent);
  } catch (err) {
    setBusy(false);
    setStatus('');
    if (created) await discardIfEmpty(threadId);
    throw err;
  }
  void refreshThreads();
}

async function discardIfEmpty(threadId) {
  // Only when the server holds nothing in it: a message may have arrived although its answer was lost.
  const page = await api.messages(threadId).catch(() => null);
  if (!page || page.messages.length > 0) return;
  // Left before it is deleted: nothing more (its approvals, its stream) is asked of a thread that is going.
  state.threads = state.threads.filter((t) => t.id !== threadId);
  if (state.current === threadId) {
    window.history.replaceState(null, '', location.pathname + location.search);
    openThread(null);
  }
  await api.deleteThread(threadId).catch(() => {});
}

function route() {
  let id = /^#\/t\/([\w-]+)$/.exec(location.hash)?.[1] ?? null;
  if (id && !state.threads.some((t) => t.id === id)) {
    // a deleted thread, or one of another server: start fresh instead of streaming a 404
    window.history.replaceState(null, '', location.pathname);
    id = null;
  }
  if (id !== state.current) openThread(id);
}

async function main() {
  const info = await api.info().catch(() => ({}));
  showSources($('sources'), info.sources ?? []);
  setupComposer({
    maxUploadBytes: info.maxUploadBytes,
    onSend: post,
  });
  setupLightbox({ messages: messagesBox, box: $('lightbox'), img: $('lightbox-img') });
  setupDrawer({ button: $('menu'), drawer: $('sidebar'), backdrop: $('drawer-backdrop'), page: $('thread-view') });
  $('new-thread').addEventListener('click', startNewThread);
  $('stop').addEventListener('click', async () => {
    if (!state.current) return;
    state.stopping = true;
    setStatus('Stopping…', 'working');
    await api.stop(state.current).catch((err) => setStatus(err.message, 'error'));
  });
  // Files and Help are the /files and /help commands; the core answers them in the thread.
  for (const name of ['files', 'help']) {
    $(name).addEventListener('click', () => post(`/${name}`, []).catch((err) => setStatus(err.message, 'error')));
  }
  $('reset').addEventListener('click', async () => {
    if (!state.current) return;
    setBusy(true);
    await api.reset(state.current).catch((err) => {
      setBusy(false);
      setStatus(err.message, 'error');
    });
  });
  $('delete').addEventListener('click', async () => {
    const threadId = state.current;
    if (!threadId || !window.confirm('Delete this thread and its files?')) return;
    // The page leaves the thread first (its stream closed, nothing more asked of it), then deletes it.
    window.history.replaceState(null, '', location.pathname + location.search);
    openThread(null);
    try {
      await api.deleteThread(threadId);
    } catch (err) {
      location.hash = `#/t/${threadId}`;
      setStatus(err.message, 'error');
    }
    await refreshThreads();
  });
  window.addEventListener('hashchange', () => void refreshThreads().then(route));
  await refreshThreads();
  route();
  if (!state.current && state.threads[0]) location.hash = `#/t/${state.threads[0].id}`;
}

void main();
