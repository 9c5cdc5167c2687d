// How an MCP server's tools, prompts and results read as our frames (the MCP adapter, mcp.ts).
// Plain functions over plain JSON: no SDK import, so that they are typed by what they read.
import { MAX_PROGRESS_MESSAGE } from '../protocol/limits.js';

type Json = Record<string, unknown>;

/** An MCP tool, as `tools/list` lists it (the fields the adapter reads). */
export interface McpTool {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: Json | undefined;
}

/** An MCP prompt, as `prompts/list` lists it. */
export interface McpPrompt {
  name: string;
  description?: string | undefined;
  arguments?: { name: string; description?: string | undefined; required?: boolean | undefined }[] | undefined;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A name as the host accepts it (tools: a-z, A-Z, 0-9, _ and -): every other character becomes `_`. */
export function hostToolName(prefix: string, name: string): string {
  return `${prefix}${name}`.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/** A prompt's command name: `<extension>:<prompt>` (letters, digits, _, - and :), other characters as `_`. */
export function promptCommandName(extension: string, prompt: string): string {
  return `${extension}:${prompt}`.replace(/[^\p{L}\p{M}\p{N}_:-]/gu, '_');
}

/** The `register_tool` frame of an MCP tool (under `hostName`). */
export function registerToolOf(hostName: string, tool: McpTool): Json {
  const frame: Json = { type: 'register_tool', name: hostName, description: tool.description ?? tool.title ?? '' };
  if (isObject(tool.inputSchema)) frame.schema = tool.inputSchema;
  if (tool.outputSchema !== undefined) frame.output_schema = tool.outputSchema;
  const annotations: Json = isObject(tool.annotations) ? { ...tool.annotations } : {};
  if (tool.title !== undefined && annotations.title === undefined) annotations.title = tool.title;
  if (Object.keys(annotations).length > 0) frame.annotations = annotations;
  return frame;
}

/** The `register_command` frame of an MCP prompt: its arguments named in the description. */
export function registerCommandOf(command: string, prompt: McpPrompt): Json {
  const args = (prompt.arguments ?? []).map((a) => (a.required === true ? a.name : `[${a.name}]`));
  const description = [prompt.description ?? '', args.length > 0 ? `(args: ${args.join(' ')})` : ''].filter((s) => s !== '').join(' ');
  return { type: 'register_command', name: command, description };
}

/**
 * A command's argument string as a prompt's named arguments: `name=value` pairs (a value may be
 * "quoted"), or else words in the order of the prompt's arguments, the last one taking the rest.
 */
export function promptArguments(text: string, prompt: McpPrompt): Record<string, string> {
  const declared = (prompt.arguments ?? []).map((a) => a.name);
  const out: Record<string, string> = {};
  const trimmed = text.trim();
  if (trimmed === '' || declared.length === 0) return out;
  const pairs = [...trimmed.matchAll(/([\w.-]+)=("((?:[^"\\]|\\.)*)"|\S*)/g)];
  if (pairs.length > 0 && pairs.every((m) => declared.includes(m[1]!))) {
    for (const m of pairs) out[m[1]!] = m[3] !== undefined ? m[3].replace(/\\(.)/g, '$1') : m[2]!;
    return out;
  }
  const words = trimmed.split(/\s+/);
  declared.forEach((name, i) => {
    if (i >= words.length) return;
    out[name] = i === declared.length - 1 ? words.slice(i).join(' ') : words[i]!;
  });
  return out;
}

/** The text of a `prompts/get` result: its messages' text, one paragraph each. */
export function promptText(result: unknown): string {
  const messages = isObject(result) && Array.isArray(result.messages) ? result.messages : [];
  const parts: string[] = [];
  for (const message of messages) {
    const content = isObject(message) ? message.content : undefined;
    for (const block of Array.isArray(content) ? content : [content]) {
      const text = blockText(block);
      if (text !== undefined) parts.push(text);
    }
  }
  return parts.join('\n\n');
}

function blockText(block: unknown): string | undefined {
  if (!isObject(block)) return undefined;
  if (block.type === 'text' && typeof block.text === 'string') return block.text;
  if (block.type === 'resource' && isObject(block.resource) && typeof block.resource.text === 'string') return block.resource.text;
  if (block.type === 'resource_link' && typeof block.uri === 'string') return `${typeof block.name === 'string' ? `${block.name}: ` : ''}${block.uri}`;
  return undefined;
}

/**
 * The `tool_result` frame of a `tools/call` result: text and images as they are, an embedded text
 * resource and a resource link as text, anything else (audio, a binary resource) kept as its type
 * only (the host shows a placeholder); `structuredContent` and `isError` carried over.
 */
export function toolResultOf(id: string, result: unknown): Json {
  const r = isObject(result) ? result : {};
  const content: Json[] = [];
  for (const block of Array.isArray(r.content) ? r.content : []) {
    if (!isObject(block) || typeof block.type !== 'string') continue;
    if (block.type === 'image' && typeof block.data === 'string' && typeof block.mimeType === 'string') {
      content.push({ type: 'image', mime_type: block.mimeType, data: block.data });
      continue;
    }
    const text = blockText(block);
    content.push(text !== undefined ? { type: 'text', text } : { type: block.type });
  }
  const frame: Json = { type: 'tool_result', id, content };
  if (r.isError === true) frame.is_error = true;
  if (r.structuredContent !== undefined) frame.structured_content = r.structuredContent;
  return frame;
}

/** A failed `tools/call` (a protocol error, a closed connection) as an error result. */
export function toolErrorOf(id: string, error: unknown): Json {
  const message = error instanceof Error ? error.message : String(error);
  return { type: 'tool_result', id, content: [{ type: 'text', text: `MCP error: ${message}` }], is_error: true };
}

/** An MCP progress notification as our `progress` frame. */
export function progressOf(id: string, progress: { progress?: unknown; total?: unknown; message?: unknown }): Json {
  const frame: Json = { type: 'progress', id };
  if (typeof progress.progress === 'number' && Number.isFinite(progress.progress)) frame.progress = progress.progress;
  if (typeof progress.total === 'number' && Number.isFinite(progress.total)) frame.total = progress.total;
  if (typeof progress.message === 'string') frame.message = progress.message.slice(0, MAX_PROGRESS_MESSAGE);
  return frame;
}
