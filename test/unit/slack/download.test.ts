import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { downloadSlackFile } from '../../../adapters/slack/download.js';
import { isThreadlabError } from '../../../src/domain/errors.js';

const URL_OK = 'https://files.slack.com/files-pri/T1-F1/download/data.csv';
const noClient = {} as WebClient;

function fetchStub(response: () => Response) {
  const requests: { url: string; auth: string | null }[] = [];
  const fetchFn = (async (url: string | URL, init?: RequestInit) => {
    requests.push({ url: String(url), auth: new Headers(init?.headers).get('authorization') });
    return response();
  }) as typeof fetch;
  return { fetchFn, requests };
}

const opts = (fetchFn: typeof fetch, extra: Partial<Parameters<typeof downloadSlackFile>[1]> = {}) => ({
  client: noClient,
  botToken: 'xoxb-test-token',
  allowedOrigins: ['https://files.slack.com'],
  maxBytes: 1000,
  fetchFn,
  ...extra,
});

/** The whole file: the download is a byte-capped stream, read to its end here. */
async function readAll(download: ReturnType<typeof downloadSlackFile>): Promise<Buffer> {
  const { stream } = await download;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function rejection(p: Promise<unknown>) {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isThreadlabError(err)) throw new Error(`expected a ThreadlabError, got ${String(err)}`);
  return err;
}

describe('downloadSlackFile', () => {
  it('fetches with the bot token and returns the bytes', async () => {
    const { fetchFn, requests } = fetchStub(
      () => new Response('a,b\n1,2\n', { headers: { 'content-type': 'text/csv' } }),
    );
    const bytes = await readAll(
      downloadSlackFile({ id: 'F1', name: 'data.csv', url: URL_OK, mime: 'text/csv' }, opts(fetchFn)),
    );
    expect(bytes.toString()).toBe('a,b\n1,2\n');
    expect(requests).toEqual([{ url: URL_OK, auth: 'Bearer xoxb-test-token' }]);
  });

  it('rejects the HTML login page Slack sends with status 200', async () => {
    const { fetchFn } = fetchStub(
      () => new Response('<html>Sign in</html>', { headers: { 'content-type': 'text/html; charset=utf-8' } }),
    );
    const err = await rejection(
      downloadSlackFile({ id: 'F1', name: 'data.csv', url: URL_OK, mime: 'text/csv' }, opts(fetchFn)),
    );
    expect(err.code).toBe('attachment_rejected');
    expect(err.isPolicy).toBe(true);
    expect(err.message).toContain('files:read');
  });

  it('rejects a file over the cap: declared, by content-length, and while streaming', async () => {
    const { fetchFn, requests } = fetchStub(() => new Response('x'));
    const declared = await rejection(
      downloadSlackFile({ id: 'F1', name: 'big.csv', url: URL_OK, bytes: 5000 }, opts(fetchFn)),
    );
    expect(declared.code).toBe('attachment_rejected');
    expect(requests).toHaveLength(0);

    const streamed = fetchStub(
      () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              controller.enqueue(new Uint8Array(400));
            },
          }),
          { headers: { 'content-type': 'application/octet-stream' } },
        ),
    );
    const err = await rejection(
      readAll(downloadSlackFile({ id: 'F1', name: 'endless.bin', url: URL_OK }, opts(streamed.fetchFn))),
    );
    expect(err.code).toBe('attachment_rejected');
    expect(err.message).toContain('THREADLAB_MAX_FILE_MB');
  });

  it('refuses to send the token anywhere but Slack', async () => {
    const { fetchFn, requests } = fetchStub(() => new Response('x'));
    const err = await rejection(
      downloadSlackFile({ id: 'F1', name: 'a.csv', url: 'https://evil.example/a.csv' }, opts(fetchFn)),
    );
    expect(err.code).toBe('attachment_rejected');
    expect(requests).toHaveLength(0);
  });

  it('looks up a file given by id only with files.info', async () => {
    const asked: unknown[] = [];
    const client = {
      files: {
        info: async (args: unknown) => {
          asked.push(args);
          return {
            ok: true,
            file: {
              id: 'F9',
              name: 'report.xlsx',
              mimetype: 'application/vnd.ms-excel',
              size: 3,
              url_private_download: URL_OK,
            },
          };
        },
      },
    } as unknown as WebClient;
    const { fetchFn, requests } = fetchStub(
      () => new Response('abc', { headers: { 'content-type': 'application/vnd.ms-excel' } }),
    );
    const bytes = await readAll(downloadSlackFile({ id: 'F9', name: 'F9' }, opts(fetchFn, { client })));
    expect(bytes.toString()).toBe('abc');
    expect(asked).toEqual([{ file: 'F9' }]);
    expect(requests[0]!.url).toBe(URL_OK);
  });

  it('reports a non-200 status as a platform error', async () => {
    const { fetchFn } = fetchStub(() => new Response('nope', { status: 404 }));
    const err = await rejection(downloadSlackFile({ id: 'F1', name: 'a.csv', url: URL_OK }, opts(fetchFn)));
    expect(err.code).toBe('platform_api');
  });
});
