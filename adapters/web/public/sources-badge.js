// The data sources this page's threads may query (GET /api/info), as a small badge in the header.

/** Shows `sources` in `badge`: their names, and their descriptions on hover; nothing when there are none. */
export function showSources(badge, sources) {
  if (!badge || sources.length === 0) return;
  badge.hidden = false;
  badge.textContent = `🗄 ${sources.map((s) => s.name).join(', ')}`;
  badge.title = sources.map((s) => `${s.name}${s.description ? `: ${s.description}` : ''}`).join('\n');
}
