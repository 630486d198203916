// Code the model wants to run, shown with Run and Skip until someone decides or the time runs out.
import { el, highlight } from './render.js';

/** The approval cards of the open thread, keyed by approval id. */
export class ApprovalCards {
  constructor(box, { decide, onError }) {
    this.box = box;
    this.decide = decide;
    this.onError = onError;
    this.cards = new Map();
  }

  /** Shows one waiting request (an `approval` event, or the list fetched when the thread opens). */
  show(view) {
    if (this.cards.has(view.approvalId)) return;
    const card = el('article', 'msg bot approval');
    card.dataset.approvalId = view.approvalId;
    const body = el('div', 'body');
    card.append(el('div', 'avatar', 'TL'), body);
    const minutes = Math.max(1, Math.round(view.timeoutMs / 60000));
    body.append(
      el(
        'p',
        'approval-header',
        `The model wants to run this ${view.language} code. Run it? (Skipped if nobody answers within ${minutes} min.)`,
      ),
    );
    const pre = el('pre', 'code');
    const code = el('code');
    code.innerHTML = highlight(view.code, view.language);
    pre.append(code);
    body.append(pre);
    const actions = el('div', 'approval-actions');
    for (const [action, label] of [
      ['run', 'Run'],
      ['skip', 'Skip'],
    ]) {
      const button = el('button', `approval-${action}`, label);
      button.type = 'button';
      button.addEventListener('click', async () => {
        for (const b of actions.querySelectorAll('button')) b.disabled = true;
        try {
          await this.decide(view.approvalId, action);
        } catch (err) {
          for (const b of actions.querySelectorAll('button')) b.disabled = false;
          this.onError(err.message);
        }
      });
      actions.append(button);
    }
    body.append(actions);
    // Last, below the live progress: the user's own messages go above the progress block.
    this.box.append(card);
    this.cards.set(view.approvalId, card);
  }

  /** Replaces the buttons with who decided (an `approval_settled` event). */
  settle({ approvalId, text }) {
    const card = this.cards.get(approvalId);
    if (!card) return;
    card.querySelector('.approval-actions')?.replaceWith(el('p', 'approval-outcome', text));
    card.classList.add('settled');
  }

  clear() {
    this.cards.clear();
  }
}
