/** The parts of a web chat message the shipped tests read (see adapters/web/API.md). */
export interface WebMessageView {
  id: string;
  role: 'user' | 'bot';
  kind?: 'answer' | 'notice' | 'error';
  text: string;
  images?: { name: string; url: string }[];
  files?: { name: string; url: string }[];
}

/** A script's view of the web chat's HTTP API, as adapters/web/API.md documents it for scripts. */
export class WebClientForTests {
  constructor(private readonly baseUrl: () => string) {}

  async createThread(): Promise<string> {
    const res = await fetch(`${this.baseUrl()}/api/threads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    if (res.status !== 201) throw new Error(`POST /api/threads answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { thread: { id: string } }).thread.id;
  }

  async post(
    threadId: string,
    message: { text: string; attachments?: { name: string; mime: string; data: Buffer }[] },
  ): Promise<void> {
    const body = {
      text: message.text,
      attachments: (message.attachments ?? []).map((a) => ({
        name: a.name,
        mime: a.mime,
        dataBase64: a.data.toString('base64'),
      })),
    };
    const res = await fetch(`${this.baseUrl()}/api/threads/${threadId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 202) throw new Error(`posting a message answered ${res.status}: ${await res.text()}`);
  }

  async messages(threadId: string): Promise<WebMessageView[]> {
    const res = await fetch(`${this.baseUrl()}/api/threads/${threadId}/messages`);
    if (res.status !== 200) throw new Error(`GET messages answered ${res.status}`);
    return ((await res.json()) as { messages: WebMessageView[] }).messages;
  }

  /** Polls until the thread has a bot message; fails on an error reply or after `timeoutMs`. */
  async waitForAnswer(threadId: string, timeoutMs = 60_000): Promise<WebMessageView> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const reply = (await this.messages(threadId)).find((m) => m.role === 'bot');
      if (reply) {
        if (reply.kind === 'error') throw new Error(`the web chat answered with an error: ${reply.text}`);
        return reply;
      }
      if (Date.now() > deadline) throw new Error(`no answer in web thread ${threadId} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * The `n`th answer (0-based) the bot gave in the thread, notices aside, once it is there; fails on an error
   * reply or after `timeoutMs`.
   */
  async nthAnswer(threadId: string, n: number, timeoutMs = 60_000): Promise<WebMessageView> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const reply = (await this.messages(threadId)).filter((m) => m.role === 'bot' && m.kind !== 'notice')[n];
      if (reply?.kind === 'error') throw new Error(`the web chat answered with an error: ${reply.text}`);
      if (reply) return reply;
      if (Date.now() > deadline) throw new Error(`no answer ${n + 1} in web thread ${threadId} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The bytes behind a relative `url` of a message (`/api/files/<id>`). */
  async download(url: string): Promise<Buffer> {
    const res = await fetch(new URL(url, this.baseUrl()));
    if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  }
}
