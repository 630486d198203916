import { createHmac } from 'node:crypto';

/** Slack's request signature: `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{rawBody}` with the signing secret. */
export function slackSignature(options: { signingSecret: string; timestampSec: number; rawBody: string }): string {
  const base = `v0:${options.timestampSec}:${options.rawBody}`;
  return `v0=${createHmac('sha256', options.signingSecret).update(base).digest('hex')}`;
}

export interface SignedPostOptions {
  /** Omit to send the request unsigned. */
  signingSecret?: string;
  /** Request time in Unix seconds; older than 5 minutes is stale. @defaultValue now */
  timestampSec?: number;
}

/** Sends an Events API request (JSON body) the way Slack does. */
export function postEvent(
  url: string,
  body: unknown,
  options: SignedPostOptions,
): Promise<{ status: number; text: string }> {
  return postSigned(url, JSON.stringify(body), 'application/json', options);
}

/** Sends a slash command (its fields form-encoded) the way Slack does. */
export function postCommand(
  url: string,
  fields: Record<string, string>,
  options: SignedPostOptions,
): Promise<{ status: number; text: string }> {
  return postSigned(url, new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded', options);
}

/** Sends an interactivity payload (JSON in the `payload` form field) the way Slack does. */
export function postInteraction(
  url: string,
  payload: unknown,
  options: SignedPostOptions,
): Promise<{ status: number; text: string }> {
  const raw = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return postSigned(url, raw, 'application/x-www-form-urlencoded', options);
}

async function postSigned(
  url: string,
  rawBody: string,
  contentType: string,
  options: SignedPostOptions,
): Promise<{ status: number; text: string }> {
  const timestampSec = options.timestampSec ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': contentType,
    'x-slack-request-timestamp': String(timestampSec),
  };
  if (options.signingSecret)
    headers['x-slack-signature'] = slackSignature({ signingSecret: options.signingSecret, timestampSec, rawBody });
  const res = await fetch(url, { method: 'POST', headers, body: rawBody });
  return { status: res.status, text: await res.text() };
}
