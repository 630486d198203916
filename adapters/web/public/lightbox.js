// A chart clicked in the thread opens full size over the page; a click or Escape closes it.

/** Wires the lightbox `box` (showing `img`) to the charts in `messages`. */
export function setupLightbox({ messages, box, img }) {
  messages.addEventListener('click', (e) => {
    const target = e.target;
    if (target.tagName === 'IMG' && target.classList.contains('chart')) {
      img.src = target.src;
      img.alt = target.alt;
      box.hidden = false;
    }
  });
  box.addEventListener('click', () => (box.hidden = true));
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') box.hidden = true;
  });
}
