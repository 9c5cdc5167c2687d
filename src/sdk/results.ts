/** What a tool handler returns, and the helpers that build it. */
import type { ContentBlock, ImageBlock, TextBlock, ToolResultFrame } from '../protocol/frames.js';

/** Content of a tool result: a string (one text block), one block, or a list of blocks. */
export type ToolContent = string | ContentBlock | readonly ContentBlock[];

/** A full tool result. */
export interface ToolResult {
  content?: ToolContent | undefined;
  /** Marks the call as failed; the model sees the content as the error. @default false */
  isError?: boolean | undefined;
  /** Registered deferred tools that become available after this result. */
  activateTools?: readonly string[] | undefined;
  /** zot's `structured_content`: a JSON value next to `content`, described by the tool's `outputSchema`. */
  structuredContent?: unknown;
}

/** Anything a tool handler may return. `undefined` means an empty, successful result. */
export type ToolReturn = ToolContent | ToolResult | undefined | void;

/** A text content block. */
export function text(value: string): TextBlock {
  return { type: 'text', text: value };
}

/** A text block the host may render as Markdown (zot's `format: "markdown"`); the model gets the text as it is. */
export function markdown(value: string): TextBlock {
  return { type: 'text', text: value, format: 'markdown' };
}

/** An image content block; bytes are base64-encoded, a string is taken as base64 already. */
export function image(data: Uint8Array | string, mimeType: string): ImageBlock {
  const base64 = typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
  return { type: 'image', mime_type: mimeType, data: base64 };
}

/** A failed tool result carrying `message` as its only text. */
export function toolError(message: string): ToolResult {
  return { content: message, isError: true };
}

function isBlock(value: unknown): value is ContentBlock {
  return typeof value === 'object' && value !== null && 'type' in value;
}

function contentBlocks(content: ToolContent | undefined): ContentBlock[] {
  if (content === undefined) return [];
  if (typeof content === 'string') return [text(content)];
  if (isBlock(content)) return [content];
  return content.map((block) => (typeof block === 'string' ? text(block) : block));
}

/** The wire frame for a handler's return value. */
export function toolResultFrame(id: string, value: ToolReturn): ToolResultFrame {
  if (value === undefined || value === null) return { type: 'tool_result', id, content: [] };
  if (typeof value === 'string' || Array.isArray(value) || isBlock(value)) {
    return { type: 'tool_result', id, content: contentBlocks(value as ToolContent) };
  }
  const result = value as ToolResult;
  return {
    type: 'tool_result',
    id,
    content: contentBlocks(result.content),
    ...(result.isError === true ? { is_error: true } : {}),
    ...(result.activateTools !== undefined && result.activateTools.length > 0
      ? { activate_tools: [...result.activateTools] }
      : {}),
    ...(result.structuredContent === undefined ? {} : { structured_content: result.structuredContent }),
  };
}

/** An error answer to a tool call. */
export function toolErrorFrame(id: string, message: string): ToolResultFrame {
  return { type: 'tool_result', id, content: [text(message)], is_error: true };
}
