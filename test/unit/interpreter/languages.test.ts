import { describe, expect, it } from 'vitest';
import { parseDirectCode } from '../../../src/core/read-intent.js';
import type { InstalledLanguage, SandboxEnvironment } from '../../../src/domain/execution.js';
import { buildSystemPrompt } from '../../../src/interpreter/system-prompt.js';
import { parseToolCall, runCodeSpec } from '../../../src/interpreter/tools.js';
import type { LlmRequest } from '../../../src/ports/llm-client.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { answer, runCodeCall, ScriptedLlm, toolCalls } from '../../fakes/scripted-llm.js';
import { directCode, input, rig } from './helpers.js';

/** R and JavaScript (issue 17): offered to the model only where the image has them, run in direct mode. */
const R: InstalledLanguage = { version: '4.5.0', packages: { ggplot2: '3.5.1', dplyr: '1.1.4' } };
const NODE: InstalledLanguage = { version: '20.19.2', packages: {} };

const languageEnum = (request: LlmRequest): unknown =>
  (request.tools[0]!.parameters as { properties: { language: { enum: string[] } } }).properties.language.enum;

describe('direct mode in R and JavaScript', () => {
  it('runs ```r, ```js and ```javascript fences as is', async () => {
    expect(parseDirectCode('```r\nx <- 1\nx\n```')).toEqual({ language: 'r', code: 'x <- 1\nx' });
    expect(parseDirectCode('```R\nsummary(1:3)\n```')).toEqual({ language: 'r', code: 'summary(1:3)' });
    expect(parseDirectCode('```js\nconsole.log(1)\n```')).toEqual({ language: 'javascript', code: 'console.log(1)' });
    expect(parseDirectCode('```javascript\n[1].length\n```')).toEqual({ language: 'javascript', code: '[1].length' });

    const llm = new ScriptedLlm({ steps: [] });
    const { interpreter, sandbox } = rig({ llm });
    const result = await interpreter.runDirect(directCode('```r\nmean(c(1, 2, 3))\n```'));
    expect(result).toMatchObject({ outcome: 'answer', direct: true });
    expect(sandbox.runs[0]!.request).toMatchObject({ language: 'r', code: 'mean(c(1, 2, 3))' });
    expect(llm.requests).toHaveLength(0);
  });
});

describe('the model is offered the languages the image has', () => {
  it('lists R and JavaScript in the tool and the prompt, with versions, and runs a call in R', async () => {
    const seen: LlmRequest[] = [];
    const llm = new ScriptedLlm({
      steps: [(request) => (seen.push(request), toolCalls([runCodeCall('summary(1:10)', 'r')])), answer('done')],
    });
    const sandbox = new FakeSandbox({ environment: { languages: { r: R, javascript: NODE } } });
    const { interpreter } = rig({ llm, sandbox });
    await interpreter.handle(input('summarise 1 to 10 in R'), {});
    expect(languageEnum(seen[0]!)).toEqual(['python', 'bash', 'r', 'javascript']);
    expect(seen[0]!.tools[0]!.description).toContain('R keeps its variables');
    const system = String(seen[0]!.messages[0]!.content);
    expect(system).toContain('R 4.5.0 (language "r") with: dplyr 1.1.4, ggplot2 3.5.1');
    expect(system).toContain('Node.js 20.19.2 (language "javascript")');
    expect(sandbox.runs[0]!.request).toMatchObject({ language: 'r', code: 'summary(1:10)' });
  });

  it('offers python and bash only on an image without them, and refuses a call in R without running it', async () => {
    const seen: LlmRequest[] = [];
    const llm = new ScriptedLlm({
      steps: [(request) => (seen.push(request), toolCalls([runCodeCall('1 + 1', 'r')])), answer('no R here')],
    });
    const { interpreter, sandbox } = rig({ llm });
    await interpreter.handle(input('use R'), {});
    expect(languageEnum(seen[0]!)).toEqual(['python', 'bash']);
    expect(String(seen[0]!.messages[0]!.content)).not.toContain('language "r"');
    expect(sandbox.runs).toHaveLength(0);
    const toolMessage = llm.requests[1]!.messages.find((m) => m.role === 'tool');
    expect(String(toolMessage?.content)).toContain('Expected {"language": "python" | "bash"');
  });

  it('parses a call in a language the tool lists and refuses one it does not', () => {
    const call = runCodeCall('1', 'javascript');
    expect(parseToolCall(call, ['python', 'bash', 'javascript'])).toEqual({
      ok: true,
      language: 'javascript',
      code: '1',
    });
    expect(parseToolCall(call)).toMatchObject({ ok: false });
    expect(runCodeSpec(['python', 'bash', 'r']).parameters).toMatchObject({
      properties: { language: { enum: ['python', 'bash', 'r'] } },
    });
  });

  it('names no R or JavaScript in the prompt of an image without them', () => {
    const environment: SandboxEnvironment = {
      imageVersion: 'test',
      python: '3.13',
      packages: {},
      limits: { memoryMb: 1024, cpus: 1, timeoutMs: 60_000, dataMb: 512, maxFileMb: 100, network: false },
    };
    const prompt = buildSystemPrompt({ environment, files: [], previews: [], uploaded: [], trimmedEntries: 0 });
    expect(prompt).not.toMatch(/Node\.js|language "r"|share \/mnt\/data/);
    const withR = buildSystemPrompt({
      environment: { ...environment, languages: { r: R } },
      files: [],
      previews: [],
      uploaded: [],
      trimmedEntries: 0,
    });
    expect(withR).toContain('All languages share /mnt/data');
  });
});
