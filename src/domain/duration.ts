const UNITS_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `30d`, `12h`, `90m`, `2w` in ms; undefined for anything else (no bare numbers: the unit must be said). */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,6})([mhdw])$/.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * UNITS_MS[match[2]!]!;
  return ms > 0 ? ms : undefined;
}
