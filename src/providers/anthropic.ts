// The host's tools and tool results in the shapes of Anthropic's Messages API. Structural types only:
// nothing here imports @anthropic-ai/sdk (test/providers/*.test-d.ts checks them against its types).
// Optional fields of these outputs are `?: T` (never undefined) so they stay assignable to the SDK's
// types under exactOptionalPropertyTypes.
import type { ToolInfo, ToolResult } from '../host/types.js';
import { imagePlaceholder, providerImageType, type ProviderImageType } from './content.js';

/** A client tool definition of the Messages API (`tools[]` of `messages.create`). */
export interface AnthropicTool {
  name: string;
  /** Omitted when the extension registered no description. */
  description?: string;
  /** The extension's JSON Schema with `type: 'object'` (the API accepts nothing else). */
  input_schema: { type: 'object'; [key: string]: unknown };
}

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
}

export interface AnthropicImageBlock {
  type: 'image';
  source: { type: 'base64'; media_type: ProviderImageType; data: string };
}

/** A `tool_result` content block, to put in the next `user` message. */
export interface AnthropicToolResult {
  type: 'tool_result';
  tool_use_id: string;
  /** Omitted when the tool produced nothing (empty text blocks are dropped: the API rejects them). */
  content?: (AnthropicTextBlock | AnthropicImageBlock)[];
  /** Present (true) only for a failed call. */
  is_error?: boolean;
}

/**
 * Tool definitions for the Anthropic Messages API, in the host's order. The schema is passed as the
 * extension sent it, except that its top-level `type` is always `'object'` (a tool's input is an
 * object; the API refuses any other schema).
 */
export function toAnthropicTools(tools: readonly ToolInfo[]): AnthropicTool[] {
  return tools.map((tool) => ({
    name: tool.name,
    ...(tool.description === '' ? {} : { description: tool.description }),
    input_schema: { ...tool.schema, type: 'object' },
  }));
}

/**
 * A tool result as an Anthropic `tool_result` block for the `tool_use` block `toolUseId`. Text stays
 * text; PNG, JPEG, GIF and WebP images become base64 image blocks; an image in any other format
 * becomes a text placeholder naming its type (the API would reject the request). `isError` maps to
 * `is_error: true`.
 */
export function toAnthropicToolResult(toolUseId: string, result: ToolResult): AnthropicToolResult {
  const content: (AnthropicTextBlock | AnthropicImageBlock)[] = [];
  for (const block of result.content) {
    if (block.type === 'text') {
      if (block.text !== '') content.push({ type: 'text', text: block.text });
      continue;
    }
    const mediaType = providerImageType(block.mimeType);
    content.push(
      mediaType === undefined
        ? { type: 'text', text: imagePlaceholder(block, 'unsupported image type') }
        : { type: 'image', source: { type: 'base64', media_type: mediaType, data: block.data } },
    );
  }
  return {
    type: 'tool_result',
    tool_use_id: toolUseId,
    ...(content.length === 0 ? {} : { content }),
    ...(result.isError ? { is_error: true } : {}),
  };
}
