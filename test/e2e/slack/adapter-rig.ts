import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { SlackAdapter } from '../../../adapters/slack/index.js';
import { FakeSlack } from '../../fakes/fake-slack/index.js';
import { answer, ScriptedHandler, startAdapter, type Mode, type Script } from './support.js';
import { SlackTransport } from './transport.js';

/** The adapter-only rig: no Bot, a scripted handler in its place. Its fields change with each test. */
export interface AdapterRig {
  fake: FakeSlack;
  adapter: SlackAdapter;
  handler: ScriptedHandler;
  send: SlackTransport;
  /** Starts another adapter (as a new process would) on the same fake, answering with `script`. */
  startAdapter(script?: Script): Promise<void>;
}

/**
 * Registers the suite's hooks: one fake Slack for the suite, and for each test a fresh adapter (bolt in
 * `mode`) whose handler answers "ok" unless the test scripts it, stopped after the test.
 */
export function useAdapterRig(mode: Mode): AdapterRig {
  const rig = {
    async startAdapter(script: Script = async () => answer('ok')) {
      rig.handler = new ScriptedHandler(script);
      rig.adapter = await startAdapter(rig.fake, mode, rig.handler);
      rig.handler.adapter = rig.adapter;
      rig.send = new SlackTransport(rig.fake, rig.adapter, mode);
    },
  } as AdapterRig;
  beforeAll(async () => {
    rig.fake = await new FakeSlack().start();
  });
  afterAll(async () => {
    await rig.fake?.stop();
  });
  beforeEach(() => rig.startAdapter());
  afterEach(async () => {
    await rig.adapter?.stop();
  });
  return rig;
}
