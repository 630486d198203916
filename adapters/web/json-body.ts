import { WebRequestError } from './map-request.js';

const OPEN = new Set([0x5b, 0x7b]); // [ {
const CLOSE = new Set([0x5d, 0x7d]); // ] }

/**
 * The deepest nesting of `[`/`{` in JSON text, counted outside strings in one pass, stopping as soon
 * as `limit` is passed: JSON.parse of deeply nested input would block the event loop first.
 */
export function jsonDepthExceeds(data: Buffer, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < data.length; i++) {
    const c = data[i]!;
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (OPEN.has(c)) {
      if (++depth > limit) return true;
    } else if (CLOSE.has(c)) depth--;
  }
  return false;
}

/** Parses JSON text that was already read, refusing (400) excessive depth and invalid JSON. */
export function parseJsonBody(body: Buffer, maxDepth = 32): unknown {
  if (jsonDepthExceeds(body, maxDepth)) {
    throw new WebRequestError(400, `The JSON body is nested deeper than ${maxDepth} levels.`, 'json_too_deep');
  }
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebRequestError(400, 'The body is not valid JSON.', 'bad_json');
  }
}
