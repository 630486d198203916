import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackAdapter } from '../../../adapters/slack/index.js';
import { createSlackAdapter } from '../../../app/slack.js';
import { loadConfig } from '../../../src/config/index.js';
import type { Bot } from '../../../src/core/bot.js';
import { threadKey } from '../../../src/domain/thread-key.js';
import { buildBot } from '../../../app/index.js';
import { createDockerSandbox, type DockerSandbox } from '../../../sandbox/index.js';
import { FakeOpenAiServer, fakeRunCode, fakeSay, SALES_CHART_CODE } from '../../fakes/fake-openai-server.js';
import {
  appMention,
  BOT_USER_ID,
  buttonPress,
  CHANNEL_ID,
  FakeSlack,
  slashCommand,
} from '../../fakes/fake-slack/index.js';
import { PNG_SIGNATURE, SIGNING_SECRET, testLogger, type Mode } from './support.js';
import { SlackTransport } from './transport.js';
import { sandboxImage } from '../../support/sandbox-image.js';
import { sandboxRuntime } from '../../support/sandbox-runtime.js';

const docker = new Docker();

describe.each<Mode>(['socket', 'http'])(
  'Slack through the real core (Bot), DockerSandbox and the openai client (%s mode)',
  (mode) => {
    let fake: FakeSlack;
    let llm: FakeOpenAiServer;
    let sandbox: DockerSandbox;
    let adapter: SlackAdapter;
    let bot: Bot;
    let send: SlackTransport;
    let dataDir: string;

    beforeAll(async () => {
      fake = await new FakeSlack().start();
      llm = new FakeOpenAiServer();
      await llm.start();
      dataDir = mkdtempSync(join(tmpdir(), `threadlab-slack-e2e-${mode}-`));
      const config = loadConfig({
        SLACK_BOT_TOKEN: fake.botToken,
        SLACK_APP_TOKEN: fake.appToken,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: fake.apiUrl,
        THREADLAB_SLACK_MODE: mode,
        OPENAI_API_KEY: 'sk-e2e-slack-test-0000000000',
        OPENAI_BASE_URL: llm.baseUrl,
        OPENAI_MODEL: 'fake-gpt',
        THREADLAB_LLM_STREAM: 'false',
        THREADLAB_DATA_DIR: dataDir,
        THREADLAB_WEB_ENABLED: 'false',
        THREADLAB_SANDBOX_POOL_SIZE: '0',
        THREADLAB_SANDBOX_MEMORY_MB: '512',
      });
      sandbox = await createDockerSandbox({
        docker,
        image: await sandboxImage(),
        limits: { ...config.sandbox, timeoutMs: 30_000 },
        dataDir,
        logger: testLogger,
        instanceId: `test-slack-${mode}-${process.pid}-${Date.now().toString(36)}`,
        runtime: sandboxRuntime(),
      });
      adapter = createSlackAdapter(config, testLogger, {
        port: 0,
        host: '127.0.0.1',
        retryConfig: { retries: 2, minTimeout: 10, maxTimeout: 50 },
        progressIntervalMs: 200,
      });
      bot = await buildBot(config, testLogger, { overrides: { sandbox, adapters: [adapter] } });
      await bot.start();
      if (mode === 'socket') await fake.socket.waitForConnection();
      send = new SlackTransport(fake, adapter, mode);
    });

    afterAll(async () => {
      await bot?.stop();
      await llm?.stop();
      await fake?.stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    const repliesIn = (ts: string) => fake.state.messages.filter((m) => m.thread_ts === ts && !m.deleted);

    it('CSV upload plus a question → the chart is uploaded into that thread as a real PNG', async () => {
      const csv = Buffer.from('month,revenue\n1,10\n2,14\n3,9\n4,21\n');
      const file = fake.addFile({ id: `FCSV${mode}`, name: 'sales.csv', mimetype: 'text/csv', data: csv });
      llm.push(fakeRunCode(SALES_CHART_CODE), fakeSay('Revenue peaked in month 4; the total is 54.'));
      const mention = appMention({ text: `<@${BOT_USER_ID}> plot revenue by month`, files: [file as never] });
      await send.event(mention);
      const chart = await fake.waitFor(
        () => fake.state.uploads.find((u) => u.completed && u.threadTs === mention.ts && u.filename.endsWith('.png')),
        {
          what: 'the chart upload',
          timeoutMs: 120_000,
        },
      );
      expect(chart.channelId).toBe(CHANNEL_ID);
      expect(chart.bytes!.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      const meta = await sharp(chart.bytes!).metadata();
      expect(meta.format).toBe('png');
      expect(meta.width).toBeGreaterThan(100);
      await fake.waitFor(() => repliesIn(mention.ts as string).some((m) => m.text.includes('peaked in month 4')), {
        what: 'the answer',
        timeoutMs: 30_000,
      });
      // the model saw the uploaded file's output: the run printed the sum computed from the CSV
      const toolResults = JSON.stringify(llm.requests.at(-1)!.body.messages.filter((m) => m.role === 'tool'));
      expect(toolResults).toContain('54');
    });

    it('`/interpreter run` runs the code in the sandbox and answers in the command thread', async () => {
      const ack = await send.command(
        slashCommand({ text: 'run ```python\nprint(6 * 7)\n```', responseUrl: fake.responseUrl() }),
      );
      expect(ack.ackMs).toBeLessThan(3000);
      const root = await fake.waitFor(
        () => fake.state.messages.find((m) => !m.thread_ts && JSON.stringify(m.blocks).includes('print(6 * 7)')),
        {
          what: 'the root message',
        },
      );
      await fake.waitFor(() => repliesIn(root.ts).some((m) => JSON.stringify(m.blocks).includes('42')), {
        what: 'the output 42',
        timeoutMs: 60_000,
      });
    });

    if (mode === 'socket') {
      it('a 40,000-character output arrives as an attached file, not as truncated text', async () => {
        const code = 'for i in range(2000):\n    print(f"row {i:05d} " + "x" * 9)';
        await send.command(
          slashCommand({ text: `run \`\`\`python\n${code}\n\`\`\``, responseUrl: fake.responseUrl() }),
        );
        const root = await fake.waitFor(
          () => fake.state.messages.find((m) => !m.thread_ts && JSON.stringify(m.blocks).includes('range(2000)')),
          {
            what: 'the root message',
          },
        );
        const file = await fake.waitFor(
          () => fake.state.uploads.find((u) => u.completed && u.threadTs === root.ts && u.filename.endsWith('.txt')),
          {
            what: 'the output file',
            timeoutMs: 60_000,
          },
        );
        const text = file.bytes!.toString('utf8');
        expect(text.length).toBeGreaterThanOrEqual(40_000);
        expect(text).toContain('row 00000 ');
        expect(text).toContain('row 01999 ');
      });

      it('the Stop button cancels a long run', async () => {
        llm.push(
          fakeRunCode('import time\nprint("sleeping", flush=True)\ntime.sleep(25)\nprint("woke")'),
          fakeSay('Done sleeping.'),
        );
        const mention = appMention({ text: `<@${BOT_USER_ID}> sleep for a while` });
        await send.event(mention);
        const status = await fake.waitFor(
          () =>
            fake.state.messages.find(
              (m) => m.thread_ts === mention.ts && !m.deleted && JSON.stringify(m.blocks).includes('Running python'),
            ),
          { what: 'the status showing the running code', timeoutMs: 60_000 },
        );
        const key = threadKey({
          platform: 'slack',
          workspace: 'T0TEAM',
          channel: CHANNEL_ID,
          thread: mention.ts as string,
        });
        const started = Date.now();
        await send.interaction(
          buttonPress({
            actionId: 'threadlab_stop',
            value: key,
            messageTs: status.ts,
            threadTs: mention.ts as string,
            responseUrl: fake.responseUrl(),
          }),
        );
        await fake.waitFor(() => status.deleted && repliesIn(mention.ts as string).length > 0, {
          what: 'the reply after Stop',
          timeoutMs: 20_000,
        });
        expect(Date.now() - started).toBeLessThan(20_000);
        const replies = JSON.stringify(repliesIn(mention.ts as string));
        expect(replies).toContain('Stopped');
        expect(replies).not.toContain('Done sleeping');
      });
    }
  },
);
