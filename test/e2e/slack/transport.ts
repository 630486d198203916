import type { SlackAdapter } from '../../../adapters/slack/index.js';
import {
  eventCallback,
  postCommand,
  postEvent,
  postInteraction,
  type FakeSlack,
} from '../../fakes/fake-slack/index.js';
import { SIGNING_SECRET, type Mode } from './support.js';

/** Delivers payloads to the adapter the way Slack would in the given mode, and reports the ack. */
export class SlackTransport {
  constructor(
    private readonly fake: FakeSlack,
    private readonly adapter: SlackAdapter,
    private readonly mode: Mode,
  ) {}

  private get eventsUrl(): string {
    return `http://127.0.0.1:${this.adapter.httpPort}/slack/events`;
  }

  async event(event: Record<string, unknown>): Promise<void> {
    const body = eventCallback(event);
    if (this.mode === 'socket') {
      await this.fake.socket.send('events_api', body);
      return;
    }
    const res = await postEvent(this.eventsUrl, body, { signingSecret: SIGNING_SECRET });
    if (res.status !== 200) throw new Error(`event answered ${res.status}: ${res.text}`);
  }

  /** Sends a slash command; resolves with the time to the ack and the ack's body. */
  async command(fields: Record<string, string>): Promise<{ ackMs: number; body: unknown }> {
    const started = Date.now();
    if (this.mode === 'socket') {
      const ack = await this.fake.socket.send('slash_commands', fields);
      return { ackMs: Date.now() - started, body: ack.payload };
    }
    const res = await postCommand(this.eventsUrl, fields, { signingSecret: SIGNING_SECRET });
    if (res.status !== 200) throw new Error(`command answered ${res.status}: ${res.text}`);
    return { ackMs: Date.now() - started, body: res.text ? JSON.parse(res.text) : undefined };
  }

  async interaction(payload: Record<string, unknown>): Promise<void> {
    if (this.mode === 'socket') {
      await this.fake.socket.send('interactive', payload);
      return;
    }
    const res = await postInteraction(this.eventsUrl, payload, { signingSecret: SIGNING_SECRET });
    if (res.status !== 200) throw new Error(`interaction answered ${res.status}: ${res.text}`);
  }
}
