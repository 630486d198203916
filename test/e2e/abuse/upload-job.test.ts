import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../roles/processes.js';
import { AbuseBot, multipartChunks, repeated, streamRequest } from './abuse-bot.js';

const MiB = 1024 * 1024;
const UPLOAD_BYTES = 100 * 1000 * 1000;

// The whole life of an upload in the shipped bot: the web request streams it to disk, then the job
// fetches it through the adapter and puts it into the thread's sandbox. Neither step may hold it whole.
describe('a 100 MB upload put into the sandbox by the job of its message', () => {
  const bot = new AbuseBot();

  beforeAll(() => bot.start());
  afterAll(() => bot.cleanup());

  type Message = { role: string; text: string };
  const messages = async (id: string) =>
    (await bot.json('GET', `/api/threads/${id}/messages`)).body.messages as Message[];

  it('arrives whole in /mnt/data while the bot peak RSS grows by less than 64 MB', async () => {
    const id = (await bot.json('POST', '/api/threads', {})).body.thread.id as string;
    // Warm up what every message costs anyway (the session's container, the code paths), so the
    // growth measured below is the upload's.
    const warm = await bot.json('POST', `/api/threads/${id}/messages`, { text: "```python\nprint('warm')\n```" });
    expect(warm.status).toBe(202);
    await waitUntil(async () => (await messages(id)).some((m) => m.role === 'bot'), {
      timeoutMs: 60_000,
      what: 'the warm-up reply',
    });

    // Writing 5 to clear_refs resets VmHWM to the current RSS: the peak read afterwards is this message's.
    await writeFile(`/proc/${bot.process.pid}/clear_refs`, '5');
    const before = await bot.memory();
    const code = "import os; print('size', os.path.getsize('/mnt/data/big.bin'))";
    const res = await streamRequest(`${bot.url}/api/threads/${id}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=j0bupl0ad' },
      chunks: multipartChunks('j0bupl0ad', [
        { name: 'text', bytes: () => [Buffer.from(`\`\`\`python\n${code}\n\`\`\``)] },
        { name: 'file', filename: 'big.bin', type: 'application/octet-stream', bytes: () => repeated(UPLOAD_BYTES) },
      ]),
    });
    expect(res.status).toBe(202);
    const uploaded = await bot.memory();
    await waitUntil(async () => (await messages(id)).filter((m) => m.role === 'bot').length === 2, {
      timeoutMs: 180_000,
      what: 'the reply to the upload',
    });
    const after = await bot.memory();
    const reply = (await messages(id)).filter((m) => m.role === 'bot')[1]!;
    expect(reply.text).toContain(`size ${UPLOAD_BYTES}`);

    const growth = after.peakBytes - before.rssBytes;
    console.log(
      `100 MB upload through its job: RSS ${(before.rssBytes / MiB).toFixed(0)} MiB before, peak ${(after.peakBytes / MiB).toFixed(0)} MiB (VmHWM), growth ${(growth / MiB).toFixed(1)} MiB (${((uploaded.peakBytes - before.rssBytes) / MiB).toFixed(1)} MiB by the time the upload was answered)`,
    );
    expect(growth).toBeLessThan(64 * MiB);
  }, 300_000);
});
