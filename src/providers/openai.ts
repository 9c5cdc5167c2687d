// The host's tools and tool results in the shapes of OpenAI's Chat Completions and Responses APIs.
// Structural types only: nothing here imports the openai package (the type tests check the shapes).
// Output fields are `?: T`, never undefined, to stay assignable under exactOptionalPropertyTypes.
import { ErrorCode, ExtensionHostError } from '../errors.js';
import type { ToolContent, ToolInfo, ToolResult } from '../host/types.js';
import { dataUrl, imagePlaceholder, providerImageType } from './content.js';

/** Which OpenAI API the shapes are for. */
export type OpenAIApi = 'chat' | 'responses';

/** A function tool of Chat Completions (`tools[]` of `chat.completions.create`). */
export interface OpenAIChatTool {
  type: 'function';
  function: {
    name: string;
    /** Omitted when the extension registered no description. */
    description?: string;
    parameters: Record<string, unknown>;
    strict?: boolean;
  };
}

/** A function tool of the Responses API (`tools[]` of `responses.create`). */
export interface OpenAIResponsesTool {
  type: 'function';
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

export interface OpenAIToolsOptions<A extends OpenAIApi = OpenAIApi> {
  api: A;
  /**
   * OpenAI's strict function calling. Only for schemas written for it (every property required,
   * `additionalProperties: false`): extension schemas usually are not.
   * @default false (Responses; Chat Completions then omits the field)
   */
  strict?: boolean | undefined;
}

/** A `tool` message of Chat Completions. */
export interface OpenAIChatToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}

/** A `user` message that carries a tool's images (a `tool` message cannot). */
export interface OpenAIChatUserMessage {
  role: 'user';
  content: ({ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } })[];
}

/** A tool result for Chat Completions. */
export interface OpenAIChatToolResult {
  message: OpenAIChatToolMessage;
  /**
   * With `images: 'follow-up'`, the tool's images as a user message, else undefined. Append it after
   * ALL the `tool` messages answering the same assistant message (the API wants those first).
   */
  followUp: OpenAIChatUserMessage | undefined;
}

export interface OpenAIChatToolResultOptions {
  api: 'chat';
  /**
   * A Chat Completions `tool` message holds text only. `'placeholder'`: each image becomes a text
   * placeholder naming its type. `'follow-up'`: the placeholders say the image follows, and
   * `followUp` carries the images as a user message.
   * @default 'placeholder'
   */
  images?: 'placeholder' | 'follow-up' | undefined;
  /** Put in front of a failed call's text (OpenAI has no error flag). @default 'Error: ' */
  errorPrefix?: string | undefined;
}

export interface OpenAIResponsesToolResultOptions {
  api: 'responses';
  /** Put in front of a failed call's text (OpenAI has no error flag). @default 'Error: ' */
  errorPrefix?: string | undefined;
}

export type OpenAIResponsesOutputContent =
  | { type: 'input_text'; text: string }
  | { type: 'input_image'; image_url: string; detail: 'auto' };

/** A `function_call_output` input item of the Responses API. */
export interface OpenAIFunctionCallOutput {
  type: 'function_call_output';
  call_id: string;
  /** A string when the result is text only, else a list of input_text / input_image parts. */
  output: string | OpenAIResponsesOutputContent[];
}

/**
 * Tool definitions for OpenAI, in the host's order, the schema passed as the extension sent it:
 * `{ type: 'function', function: { name, description, parameters } }` for Chat Completions,
 * `{ type: 'function', name, description, parameters, strict }` for Responses.
 * @throws ExtensionHostError `INVALID_ARGUMENT` when `options.api` is neither `'chat'` nor `'responses'` (or no options).
 */
export function toOpenAITools(tools: readonly ToolInfo[], options: OpenAIToolsOptions<'chat'>): OpenAIChatTool[];
export function toOpenAITools(tools: readonly ToolInfo[], options: OpenAIToolsOptions<'responses'>): OpenAIResponsesTool[];
export function toOpenAITools(tools: readonly ToolInfo[], options: OpenAIToolsOptions): OpenAIChatTool[] | OpenAIResponsesTool[];
export function toOpenAITools(tools: readonly ToolInfo[], options: OpenAIToolsOptions): OpenAIChatTool[] | OpenAIResponsesTool[] {
  checkApi('toOpenAITools', options);
  const described = (tool: ToolInfo) => (tool.description === '' ? {} : { description: tool.description });
  if (options.api === 'responses') {
    const strict = options.strict ?? false;
    return tools.map((tool) => ({ type: 'function', name: tool.name, ...described(tool), parameters: { ...tool.schema }, strict }));
  }
  const strict = options.strict === undefined ? {} : { strict: options.strict };
  return tools.map((tool) => ({ type: 'function', function: { name: tool.name, ...described(tool), parameters: { ...tool.schema }, ...strict } }));
}

/**
 * A tool result for OpenAI, answering the tool call `callId`.
 * - Chat Completions: `{ message: { role: 'tool', tool_call_id, content }, followUp }`; the text
 *   blocks joined by newlines, images per `options.images`.
 * - Responses: `{ type: 'function_call_output', call_id, output }`; `output` is the joined text, or
 *   (when there are images) a list of `input_text` and `input_image` (data URL) parts in order.
 * PNG, JPEG, GIF and WebP images are sent; other formats become text placeholders. A failed call's
 * text starts with `errorPrefix`.
 * @throws ExtensionHostError `INVALID_ARGUMENT` when `options.api` is neither `'chat'` nor `'responses'` (or no options).
 */
export function toOpenAIToolResult(callId: string, result: ToolResult, options: OpenAIChatToolResultOptions): OpenAIChatToolResult;
export function toOpenAIToolResult(callId: string, result: ToolResult, options: OpenAIResponsesToolResultOptions): OpenAIFunctionCallOutput;
export function toOpenAIToolResult(
  callId: string,
  result: ToolResult,
  options: OpenAIChatToolResultOptions | OpenAIResponsesToolResultOptions,
): OpenAIChatToolResult | OpenAIFunctionCallOutput;
export function toOpenAIToolResult(
  callId: string,
  result: ToolResult,
  options: OpenAIChatToolResultOptions | OpenAIResponsesToolResultOptions,
): OpenAIChatToolResult | OpenAIFunctionCallOutput {
  checkApi('toOpenAIToolResult', options);
  const prefix = result.isError ? (options.errorPrefix ?? 'Error: ') : '';
  return options.api === 'chat' ? chatResult(callId, result.content, prefix, options.images ?? 'placeholder') : responsesOutput(callId, result.content, prefix);
}

/**
 * The two APIs want different shapes and neither is a safe guess: an untyped caller that passes no
 * options (or another `api`) gets a typed error, not a TypeError or the wrong shape.
 */
function checkApi(fn: string, options: unknown): void {
  const api = (options as { api?: unknown } | null | undefined)?.api;
  if (api === 'chat' || api === 'responses') return;
  const got = options === undefined || options === null ? `no options (${String(options)})` : `api ${typeof api === 'string' ? JSON.stringify(api) : String(api)}`;
  throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `${fn}: options.api must be 'chat' or 'responses'; got ${got}`);
}

function chatResult(callId: string, content: readonly ToolContent[], prefix: string, images: 'placeholder' | 'follow-up'): OpenAIChatToolResult {
  const texts: string[] = [];
  const attached: OpenAIChatUserMessage['content'] = [];
  for (const block of content) {
    if (block.type === 'text') {
      texts.push(block.text);
      continue;
    }
    const mediaType = providerImageType(block.mimeType);
    if (mediaType === undefined) texts.push(imagePlaceholder(block, 'unsupported image type'));
    else if (images === 'placeholder') texts.push(imagePlaceholder(block, 'a tool message holds text only'));
    else {
      attached.push({ type: 'image_url', image_url: { url: dataUrl(mediaType, block.data) } });
      texts.push(`[image ${attached.length} of this result: in the next user message]`);
    }
  }
  const followUp: OpenAIChatUserMessage | undefined =
    attached.length === 0 ? undefined : { role: 'user', content: [{ type: 'text', text: `Images returned by tool call ${callId}:` }, ...attached] };
  return { message: { role: 'tool', tool_call_id: callId, content: withPrefix(prefix, texts.join('\n')) }, followUp };
}

function responsesOutput(callId: string, content: readonly ToolContent[], prefix: string): OpenAIFunctionCallOutput {
  const parts: OpenAIResponsesOutputContent[] = [];
  for (const block of content) {
    if (block.type === 'text') {
      parts.push({ type: 'input_text', text: block.text });
      continue;
    }
    const mediaType = providerImageType(block.mimeType);
    parts.push(
      mediaType === undefined
        ? { type: 'input_text', text: imagePlaceholder(block, 'unsupported image type') }
        : { type: 'input_image', image_url: dataUrl(mediaType, block.data), detail: 'auto' },
    );
  }
  if (parts.every((part) => part.type === 'input_text')) {
    return { type: 'function_call_output', call_id: callId, output: withPrefix(prefix, parts.map((part) => part.text).join('\n')) };
  }
  const first = parts[0];
  if (prefix !== '') {
    if (first?.type === 'input_text') parts[0] = { type: 'input_text', text: prefix + first.text };
    else parts.unshift({ type: 'input_text', text: prefix.trimEnd() });
  }
  return { type: 'function_call_output', call_id: callId, output: parts };
}

const withPrefix = (prefix: string, text: string): string => (text === '' ? prefix.trimEnd() : prefix + text);
