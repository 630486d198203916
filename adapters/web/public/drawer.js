// The thread list as a drawer at narrow widths (phones): a menu button opens it over the thread, and
// Escape, a click outside or picking something in it closes it. Wide screens show the list beside the
// thread and never use the drawer.

/** The width below which fit.css turns the sidebar into a drawer; the two must agree. */
const NARROW = window.matchMedia('(max-width: 720px)');

/**
 * Wires the drawer. `button` toggles `drawer`; while it is open the rest of the page (`page`) is inert, so
 * focus and clicks stay in the list, and `backdrop` catches a click outside. Returns `close()`.
 */
export function setupDrawer({ button, drawer, backdrop, page }) {
  const isOpen = () => button.getAttribute('aria-expanded') === 'true';

  const setOpen = (open) => {
    button.setAttribute('aria-expanded', String(open));
    drawer.classList.toggle('open', open);
    backdrop.hidden = !open;
    page.inert = open;
  };

  const open = () => {
    setOpen(true);
    // Focus goes to what is active in the list (the open thread), or its first control.
    (drawer.querySelector('.thread-item.active') ?? drawer.querySelector('button, a[href]'))?.focus();
  };

  /** Closes the drawer; `returnFocus` puts focus back on the menu button (Escape, a click outside). */
  const close = ({ returnFocus = false } = {}) => {
    if (!isOpen()) return;
    setOpen(false);
    if (returnFocus) button.focus();
  };

  button.addEventListener('click', () => (isOpen() ? close({ returnFocus: true }) : open()));
  backdrop.addEventListener('click', () => close({ returnFocus: true }));
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && isOpen()) {
      e.stopPropagation();
      close({ returnFocus: true });
    }
  });
  // A thread or "+ New thread" picked in the list: the drawer has done its job. Captured, so the page is no
  // longer inert when the pick's own handler runs (and moves focus into it).
  drawer.addEventListener(
    'click',
    (e) => {
      if (e.target.closest('a[href], button')) close();
    },
    { capture: true },
  );
  // Turned to a wide screen while open: the list is beside the thread again, and the page must not stay inert.
  NARROW.addEventListener('change', () => {
    if (!NARROW.matches) close();
  });
  return { close };
}
