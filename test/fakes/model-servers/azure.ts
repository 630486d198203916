/**
 * Azure OpenAI: `POST /openai/deployments/<deployment>/chat/completions?api-version=<version>` with an `api-key`
 * header, or the v1 API at `/openai/v1/chat/completions` (no api-version; the model is the deployment name).
 *
 * Sources read:
 * - Azure OpenAI REST reference (learn.microsoft.com/azure/ai-services/openai/reference): the key goes in the
 *   `api-key` header; `Authorization: Bearer` is for Microsoft Entra tokens.
 * - Wrong key: microsoft/semantic-kernel#10337, SciSharp/BotSharp#386: 401
 *   `{"error":{"code":"401","message":"Access denied due to invalid subscription key or wrong API endpoint. Make sure
 *   to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."}}`.
 * - A key sent as a Bearer token (taken for an Entra token): langchain-ai/langchain#17373, run-llama/llama_index#12484,
 *   Azure-Samples/azure-search-openai-demo#458: 401 `{"statusCode":401,"message":"Unauthorized. Access token is
 *   missing, invalid, audience is incorrect (https://cognitiveservices.azure.com), or have expired."}`.
 * - No api-version: MicrosoftDocs/azure-docs#114602, ThinkInAIXYZ/deepchat#262: 404
 *   `{"error":{"code":"404","message":"Resource not found"}}`. Unknown deployment: chatboxai/chatbox#646: 404
 *   `{"error":{"code":"DeploymentNotFound","message":"The API deployment for this resource does not exist. If you
 *   created the deployment within the last 5 minutes, please wait a moment and try again."}}`.
 * - `stream_options` on older api-versions: openai/openai-python#1469 (2023-05-15), Pythagora-io/gpt-pilot#1022,
 *   songquanpeng/one-api#1423: 400 `Unrecognized request argument supplied: stream_options. Please contact us through
 *   an Azure support request at: https://go.microsoft.com/fwlink/?linkid=2213926 for further questions.`
 *   (`type: invalid_request_error`); griptape-ai/griptape#1640: accepted by the 2024-10-21 GA version.
 * - Streams: AbanteAI/archive-old-cli-mentat#429, seratch/ChatGPT-in-Slack#49, Azure/azure-sdk-for-go#21086: the first
 *   chunk is `{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[…]}`; rksm/org-ai#90:
 *   each choice carries `content_filter_results`; microsoft/autogen#6465, vercel/ai#12607: with asynchronous filtering
 *   an annotation chunk without `delta` (`content_filter_offsets`) can follow the finish.
 * - The v1 API (learn.microsoft.com/azure/foundry/openai/api-version-lifecycle, from August 2025): base URL
 *   `https://<resource>.openai.azure.com/openai/v1/`, no api-version, the plain OpenAI client with the key.
 * Not confirmed: the first api-version that accepts `stream_options` (the fake accepts 2024-09-01-preview and later,
 *   from the REST specs' history); which check Azure applies first (the fake: key, then api-version); that the v1 API
 *   takes the key as a Bearer token (the docs' OpenAI-client example implies it); the underlying model name and
 *   `system_fingerprint` in responses (the fake reports `gpt-4o-2024-11-20`); how an error midway through a stream is
 *   written (the fake uses OpenAI's data event).
 */
import {
  ALNUM,
  bearerConfig,
  bearerToken,
  dialectName,
  header,
  type ModelServerEntry,
  randomChars,
  type Refusal,
  type ServerDialect,
  sseData,
  type ThreadlabConfig,
} from './dialect.js';
import { streamStyle } from './reply-writer.js';

export interface AzureOptions {
  /** The deployment name in the URL (v1: the model name). @defaultValue 'gpt-4o' */
  deployment?: string;
  /** The `api-version` the user configures. @defaultValue '2024-10-21' */
  apiVersion?: string;
  /** The resource key. @defaultValue 'azure-test-key' */
  apiKey?: string;
  /** The v1 API (`/openai/v1`, no api-version, key as `api-key` or Bearer). @defaultValue false */
  v1?: boolean;
  /** Asynchronous content filtering: an annotation chunk without `delta` after the finish. @defaultValue false */
  asyncFilter?: boolean;
}

const ACCESS_DENIED =
  'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.';
const ENTRA_REFUSED =
  'Unauthorized. Access token is missing, invalid, audience is incorrect (https://cognitiveservices.azure.com), or have expired.';
const STREAM_OPTIONS_REFUSED =
  'Unrecognized request argument supplied: stream_options. Please contact us through an Azure support request at: https://go.microsoft.com/fwlink/?linkid=2213926 for further questions.';

/** Azure's error body: OpenAI's shape for invalid requests, `{code: "<status>", message}` otherwise. */
export function azureError(status: number, message: string): unknown {
  if (status === 400) return { error: { message, type: 'invalid_request_error', param: null, code: null } };
  return { error: { code: String(status), message } };
}

const SAFE = { filtered: false, severity: 'safe' };
const CONTENT_FILTER = { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: SAFE };
const PROMPT_FILTER = [
  { prompt_index: 0, content_filter_results: { ...CONTENT_FILTER, jailbreak: { filtered: false, detected: false } } },
];

/** Whether an api-version knows `stream_options` (2024-09-01-preview and the 2024-10-21 GA version on). */
export function acceptsStreamOptions(apiVersion: string): boolean {
  return apiVersion.slice(0, 10) >= '2024-09-01';
}

/** Azure OpenAI serving one deployment. */
export function azure(options: AzureOptions = {}): ServerDialect {
  const deployment = options.deployment ?? 'gpt-4o';
  const key = options.apiKey ?? 'azure-test-key';
  const refuse = (status: number, body: unknown): Refusal => ({ status, body });
  const fingerprint = `fp_${randomChars('0123456789abcdef', 10)}`;
  return {
    name: dialectName('azure', options),
    basePath: options.v1 ? '/openai/v1' : `/openai/deployments/${deployment}`,
    errorBody: azureError,
    notFound: ({ path }) => {
      const other = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(path);
      return other && other[1] !== deployment
        ? refuse(404, {
            error: {
              code: 'DeploymentNotFound',
              message:
                'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
            },
          })
        : refuse(404, azureError(404, 'Resource not found'));
    },
    checks: [
      (request) => {
        const apiKey = header(request, 'api-key');
        if (apiKey !== undefined) return apiKey === key ? undefined : refuse(401, azureError(401, ACCESS_DENIED));
        const bearer = bearerToken(request);
        if (options.v1 && bearer !== undefined)
          return bearer === key ? undefined : refuse(401, azureError(401, ACCESS_DENIED));
        return refuse(401, { statusCode: 401, message: ENTRA_REFUSED });
      },
      ({ query }) =>
        options.v1 || query.get('api-version') ? undefined : refuse(404, azureError(404, 'Resource not found')),
      ({ query, body }) =>
        !options.v1 && body.stream_options !== undefined && !acceptsStreamOptions(query.get('api-version') ?? '')
          ? refuse(400, azureError(400, STREAM_OPTIONS_REFUSED))
          : undefined,
    ],
    style: {
      completionId: () => `chatcmpl-${randomChars(ALNUM, 29)}`,
      toolCallId: () => `call_${randomChars(ALNUM, 24)}`,
      envelope: () => ({ model: 'gpt-4o-2024-11-20', system_fingerprint: fingerprint }),
      choiceExtra: { content_filter_results: CONTENT_FILTER },
      completionExtra: { prompt_filter_results: PROMPT_FILTER },
      stream: streamStyle({
        leadChunk: () => ({
          choices: [],
          created: 0,
          id: '',
          model: '',
          object: '',
          prompt_filter_results: PROMPT_FILTER,
        }),
        ...(options.asyncFilter
          ? {
              trailingChunks: () => [
                {
                  id: '',
                  object: '',
                  created: 0,
                  model: '',
                  choices: [
                    {
                      index: 0,
                      finish_reason: null,
                      content_filter_results: CONTENT_FILTER,
                      content_filter_offsets: { check_offset: 0, start_offset: 0, end_offset: 64 },
                    },
                  ],
                  usage: null,
                },
              ],
            }
          : {}),
        midStreamError: (_envelope, message) =>
          sseData({ error: { message, type: 'server_error', param: null, code: null } }),
      }),
    },
  };
}

/** Threadlab's settings for the `gpt-4o` deployment at `apiVersion`, the key in the `api-key` header. */
function deploymentConfig(apiVersion: string): ThreadlabConfig {
  const baseUrlSuffix = `/openai/deployments/gpt-4o?api-version=${apiVersion}`;
  return { baseUrlSuffix, model: 'gpt-4o', apiKey: 'azure-test-key', auth: 'api-key-header' };
}

/** The catalogue entries of this server (test/fakes/model-servers/index.ts). */
export const AZURE_SERVERS: ModelServerEntry[] = [
  {
    name: 'azure',
    server: 'Azure OpenAI',
    variant: 'default (api-version 2024-10-21)',
    dialect: () => azure(),
    threadlab: deploymentConfig('2024-10-21'),
    toolCalls: 'native',
    demands: ['the key in the `api-key` header', 'the `api-version` query'],
    reproduces: [
      '401 `{"statusCode":401,"message":"Unauthorized. Access token is missing…"}` for a key sent as Bearer',
      '401 `Access denied due to invalid subscription key…` for a wrong `api-key`',
      '404 `Resource not found` without api-version; 404 DeploymentNotFound for another deployment',
      'first stream chunk with empty `choices` and `prompt_filter_results`; `content_filter_results` on choices',
    ],
  },
  {
    name: 'azure-2024-02-01',
    server: 'Azure OpenAI',
    variant: 'apiVersion: 2024-02-01',
    dialect: () => azure({ apiVersion: '2024-02-01' }),
    threadlab: deploymentConfig('2024-02-01'),
    toolCalls: 'native',
    demands: ['the key in the `api-key` header', 'no `stream_options`'],
    reproduces: ['400 `Unrecognized request argument supplied: stream_options. …`'],
  },
  {
    name: 'azure-async-filter',
    server: 'Azure OpenAI',
    variant: 'asyncFilter: true',
    dialect: () => azure({ asyncFilter: true }),
    threadlab: deploymentConfig('2024-10-21'),
    toolCalls: 'native',
    demands: ['the key in the `api-key` header'],
    reproduces: ['a chunk without `delta` (content_filter_offsets) after the finish'],
  },
  {
    name: 'azure-v1',
    server: 'Azure OpenAI',
    variant: 'v1: true (/openai/v1)',
    dialect: () => azure({ v1: true }),
    threadlab: bearerConfig('/openai/v1', 'gpt-4o', 'azure-test-key'),
    toolCalls: 'native',
    demands: [],
    reproduces: ['the v1 API: no api-version, the key as Bearer or `api-key`'],
  },
];
