import { describe, expect, it } from 'vitest';
import { PlatformAdapters } from '../../../src/platforms/platform-adapters.js';
import { personName } from '../../../src/platforms/person-name.js';
import { RecordingAdapter } from '../../fakes/recording-adapter.js';
import { profileOf } from '../../fakes/profiles.js';

describe('people by name, per platform profile', () => {
  it('Slack and Discord name a person by their mention, the web chat and the CLI by the name they have', () => {
    expect(profileOf('slack').mention({ id: 'U0FRANK01', name: 'frank' })).toBe('<@U0FRANK01>');
    expect(profileOf('slack').mention({ id: 'W0ENTERPRISE1' })).toBe('<@W0ENTERPRISE1>');
    expect(profileOf('discord').mention({ id: '80351110224678912', name: 'ann' })).toBe('<@80351110224678912>');
    expect(profileOf('web').mention({ id: 'web-user', name: 'you' })).toBe('you');
    expect(profileOf('cli').mention({ id: 'alice' })).toBe('alice');
  });

  it('never puts what is not the platform’s id inside a mention', () => {
    for (const id of ['U1>', 'u0lower1', '<!channel>', 'U0A B', '', 'U'.repeat(40)])
      expect(profileOf('slack').mention({ id, name: 'someone else' })).toBe('someone else');
    expect(profileOf('slack').mention({ id: '<!here>' })).toBe('someone');
    for (const id of ['123', '8035111022467891x', '@everyone', '1'.repeat(30)])
      expect(profileOf('discord').mention({ id })).toBe('someone');
  });

  it('the core asks the platform’s adapter, and falls back to the name where this process has none', () => {
    const adapters = new PlatformAdapters([new RecordingAdapter('slack')]);
    expect(personName(adapters, 'slack', { id: 'UHUMAN1' })).toBe('<@UHUMAN1>');
    expect(personName(adapters, 'discord', { id: '80351110224678912', name: 'ann' })).toBe('ann');
    expect(personName(adapters, 'discord', { id: '80351110224678912' })).toBe('80351110224678912');
  });
});
