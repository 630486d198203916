/**
 * A figure the model's answer states: a number it claims, with where it stands in the answer and how
 * precisely it is stated.
 */
export interface Figure {
  /** Offset of the figure's first character in the answer (its sign or currency symbol included). */
  start: number;
  /** Offset just after its last character (a scale suffix and a percent sign or word included, a unit not). */
  end: number;
  /** The figure as written, e.g. "$3.4M", "−12", "45 %". */
  text: string;
  /** Its value in plain units: "3.4M" → 3400000, "1.2×10^-5" → 0.000012, "45 %" → 45 (see `percent`). */
  value: number;
  /**
   * The decimal place of its last stated digit: 2 for "12.35", 0 for "1,234", -5 for "3.4M" (stated to
   * the hundred thousand), 6 for "1.2e-5". A figure matches an output value that rounds to it at this place.
   */
  decimals: number;
  /** Significant digits as written, for figures stated with a suffix or in scientific notation. */
  significantDigits?: number;
  /** True when stated as a percentage ("45%", "45 %", "45 percent"); `value` is then in percent. */
  percent: boolean;
  /** The currency symbol written with it, e.g. "$". */
  currency?: string;
  /**
   * The number as written before its suffix scaled it ("3.4M" → 3.4 at 1 decimal): outputs that print
   * in the suffix's unit ("3.41 million") hold this value.
   */
  mantissa?: { value: number; decimals: number };
}

/**
 * One output of the turn's runs, as data: printed text, a displayed value, a table or a file read back; or
 * the user's own message (`message`), whose figures are the user's and not the model's claims.
 */
export interface OutputSource {
  /** The run that produced it (its number in the turn, or an id; 0 for the user's message). */
  run: number | string;
  kind: 'stdout' | 'result' | 'table' | 'file' | 'message';
  text: string;
  /** A file's name, for a file read back (a tooltip then names it: "sales.csv, line 5"). */
  name?: string;
}

/** Where a figure was found: the run, the 1-based line of that output, and the number as printed there. */
export interface FoundAt {
  run: number | string;
  kind: OutputSource['kind'];
  /** The file's name, when the source was a file read back. */
  name?: string;
  line: number;
  /** The output's number as printed, e.g. "12.3456" or "1.234e+06". */
  text: string;
}

/** One figure of the answer and where an output holds it, or null when no output does. */
export interface FigureCheck {
  figure: Figure;
  found: FoundAt | null;
}

/** The outcome of checking an answer's figures against the turn's outputs. Limits reached are reported here. */
export interface VerifyResult {
  /** The checked figures, in the order the answer states them. */
  checks: FigureCheck[];
  /** Figures the answer states in all; more than `checks.length` when `maxFigures` cut the list. */
  figuresTotal: number;
  /** Figures past `maxFigures`, not checked. */
  figuresUnchecked: number;
  /** Characters of output given in all, and how many were scanned (fewer when `maxOutputChars` cut them). */
  output: { totalChars: number; scannedChars: number };
}
