// One MCP server session (the SDK's low-level `Server`) over the host of `zot-ext mcp`: tools/list
// and tools/call from the host's tools (the intercept chain asked first, as an agent does, then
// `callTool` with the args it settled on: deadlines, cancel and progress apply), prompts/list and prompts/get from its commands. Every session of the
// process shares one host; `McpSessions` tells them all when the host's tools or commands change.
import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult, type ContentBlock, type GetPromptResult, type Prompt, type PromptMessage, type Tool } from '@modelcontextprotocol/server';
import type { ExtensionHost } from '../../host/host.js';
import type { CommandOutcome, ToolInfo, ToolResult } from '../../host/types.js';
import { VERSION } from '../../version.js';

export interface McpBridgeOptions {
  host: ExtensionHost;
  /** Deadline of each tools/call (`--timeout`). @default the host's `timeouts.tool` */
  toolTimeoutMs?: number | undefined;
  /** Deadline of each prompts/get (`--timeout`). @default the host's `timeouts.command` */
  commandTimeoutMs?: number | undefined;
  /** One diagnostic line (stderr). */
  log: (line: string) => void;
}

/** Where what an extension submits while one of its commands runs as a prompt goes. */
type SubmitSink = (text: string) => void;

/** The sessions of one `zot-ext mcp` process and what they share. */
export class McpSessions {
  private readonly servers = new Set<Server>();
  /** The prompts running, by extension: what it submits goes to its prompt (see onSubmit). */
  private readonly submitSinks = new Map<string, Set<SubmitSink>>();
  private readonly ambiguous = new Set<string>();
  private readonly notified = new Set<string>();

  constructor(private readonly options: McpBridgeOptions) {}

  /**
   * The host's `submit` callback: text an extension submits while one of its commands runs joins that
   * prompt's messages, in that session only. While prompts of the same extension run in two sessions
   * at once, a submit cannot be told apart: it joins neither (a line on stderr says so, once per extension).
   */
  onSubmit(extension: string, text: string): void {
    const sinks = this.submitSinks.get(extension);
    if (sinks === undefined) return;
    if (sinks.size === 1) {
      for (const sink of sinks) sink(text);
      return;
    }
    if (this.ambiguous.has(extension)) return;
    this.ambiguous.add(extension);
    this.options.log(`${extension} submitted text while ${sinks.size} of its prompts ran at once: it joins none of them (it could be for any)`);
  }

  /** The host's tools changed: every initialised session gets `notifications/tools/list_changed`. */
  toolsChanged(): void {
    for (const server of this.servers) void server.sendToolListChanged().catch(() => undefined);
  }

  /** The host's commands changed: every initialised session gets `notifications/prompts/list_changed`. */
  commandsChanged(): void {
    for (const server of this.servers) void server.sendPromptListChanged().catch(() => undefined);
  }

  /** A new session's server, with every handler set; it joins the broadcasts once the client has initialised. */
  create(): Server {
    const server = new Server(
      { name: 'zot-ext', version: VERSION },
      {
        capabilities: { tools: { listChanged: true }, prompts: { listChanged: true } },
        instructions: 'Tools and prompts of the zot extensions loaded by zot-ext mcp.',
      },
    );
    server.oninitialized = () => this.servers.add(server);
    // A line that is not JSON-RPC, a message the SDK refuses: one line each, cut short (a peer's bytes).
    server.onerror = (err) => this.options.log(`MCP: ${err.message.replace(/\s+/g, ' ').slice(0, 300)}`);
    server.onclose = () => this.servers.delete(server);
    server.setRequestHandler('tools/list', () => ({ tools: this.tools().map(toMcpTool) }));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const { name, arguments: args } = request.params;
      const tool = this.tools().find((t) => t.name === name);
      if (tool === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool ${JSON.stringify(name)}`);
      const token = ctx.mcpReq._meta?.progressToken ?? request.params._meta?.progressToken;
      let reports = 0;
      // Sent before the result: a report after it would be for a request the client has forgotten.
      // Reports go out in order, so the last one sent stands for all (no list that grows with them).
      let sent: Promise<void> = Promise.resolve();
      // The intercept chain first, as an agent asks it before running a tool the model chose.
      let decision;
      try {
        decision = await this.options.host.intercepts.toolCall({ toolId: `mcp-${String(ctx.mcpReq.id)}`, toolName: name, args: args ?? {} }, { signal: ctx.mcpReq.signal });
      } catch (err) {
        return errorResult(`${name} was not run: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (decision.block) {
        this.options.log(`${name}: blocked${decision.blockedBy === undefined ? '' : ` by ${decision.blockedBy}`}: ${decision.reason ?? ''}`);
        return errorResult(decision.reason ?? `blocked by ${decision.blockedBy ?? 'an interceptor'}`);
      }
      const result = await this.options.host.callTool(name, decision.args, {
        signal: ctx.mcpReq.signal,
        timeoutMs: this.options.toolTimeoutMs,
        onProgress:
          token === undefined
            ? undefined
            : (p) => {
                // MCP's progress must grow with every report; an extension may send only a message.
                reports++;
                const params = { progressToken: token, progress: p.progress ?? reports, ...(p.total === undefined ? {} : { total: p.total }), ...(p.message === undefined ? {} : { message: p.message }) };
                sent = ctx.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => undefined);
              },
      });
      await sent;
      if (result.failure !== undefined) this.options.log(`${name}: ${result.failure.message}`);
      return server.projectCallToolResult(toMcpResult(result), objectSchema(tool.outputSchema));
    });
    server.setRequestHandler('prompts/list', () => ({ prompts: this.options.host.commands().map(toMcpPrompt) }));
    server.setRequestHandler('prompts/get', async (request, ctx) => {
      const { name, arguments: args } = request.params;
      const command = this.options.host.commands().find((c) => c.name === name);
      if (command === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown prompt ${JSON.stringify(name)}`);
      const extension = command.extension;
      const submitted: { extension: string; text: string }[] = [];
      const sink: SubmitSink = (text) => submitted.push({ extension, text });
      const sinks = this.submitSinks.get(extension) ?? new Set<SubmitSink>();
      this.submitSinks.set(extension, sinks.add(sink));
      let outcome: CommandOutcome;
      try {
        outcome = await this.options.host.runCommand({ name, args: args?.args ?? '' }, { signal: ctx.mcpReq.signal, timeoutMs: this.options.commandTimeoutMs });
      } finally {
        sinks.delete(sink);
        if (sinks.size === 0 && this.submitSinks.get(extension) === sinks) this.submitSinks.delete(extension);
      }
      // A panel no MCP client can show: closed at once, as if the user closed it (the extension is told).
      if (outcome.handled && outcome.panel !== undefined) this.options.host.closePanel(outcome.panel.panelId, { extension: outcome.extension });
      return toPromptResult(outcome, submitted);
    });
    return server;
  }

  /** The tools a client may call: all active ones but interactive tools (they wait for a user at a panel). */
  private tools(): ToolInfo[] {
    return this.options.host.tools().filter((t) => {
      if (t.interactive !== true) return true;
      const key = `${t.extension}/${t.name}`;
      if (!this.notified.has(key)) {
        this.notified.add(key);
        this.options.log(`not serving ${t.name} (${t.extension}): an interactive tool waits for a user at a panel, which MCP has not`);
      }
      return false;
    });
  }
}

/** A JSON Schema MCP accepts for a tool's input or output: an object schema (`type: "object"`). */
function objectSchema(schema: unknown): (Record<string, unknown> & { type: 'object' }) | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined;
  const s = schema as Record<string, unknown>;
  return s.type === 'object' ? (s as Record<string, unknown> & { type: 'object' }) : undefined;
}

export function toMcpTool(tool: ToolInfo): Tool {
  const extra = tool as ToolInfo & { title?: unknown; annotations?: unknown };
  const output = objectSchema(tool.outputSchema);
  const annotations = typeof extra.annotations === 'object' && extra.annotations !== null && !Array.isArray(extra.annotations) ? (extra.annotations as Tool['annotations']) : undefined;
  return {
    name: tool.name,
    ...(typeof extra.title === 'string' ? { title: extra.title } : {}),
    description: tool.description,
    // A schema that is not an object schema (zot accepts any JSON) cannot be said in MCP: any object then.
    inputSchema: objectSchema(tool.schema) ?? { type: 'object' },
    ...(output === undefined ? {} : { outputSchema: output }),
    ...(annotations === undefined ? {} : { annotations }),
    _meta: { 'zot-ext/extension': tool.extension },
  };
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

export function toMcpResult(result: ToolResult): CallToolResult {
  const content: ContentBlock[] = result.content.map((c) => (c.type === 'image' ? { type: 'image', data: c.data, mimeType: c.mimeType } : { type: 'text', text: c.text }));
  return {
    content,
    ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent as Record<string, unknown> }),
    ...(result.isError ? { isError: true } : {}),
  };
}

function toMcpPrompt(command: { name: string; description: string; extension: string }): Prompt {
  return {
    name: command.name,
    description: command.description,
    arguments: [{ name: 'args', description: `what follows /${command.name} when typed as a slash command`, required: false }],
    _meta: { 'zot-ext/extension': command.extension },
  };
}

/**
 * A command's answer as prompt messages: its prompt, insert or display text (a `tool_prompt`: its
 * prompt) and then what its extension submitted while it ran, each one user message. A panel or an
 * error is a JSON-RPC error: a prompt cannot show a panel.
 */
export function toPromptResult(outcome: CommandOutcome, submitted: readonly { extension: string; text: string }[]): GetPromptResult {
  if (!outcome.handled) {
    const why = outcome.failure?.message ?? `no extension has the command /${outcome.name}`;
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, why);
  }
  if (outcome.failure !== undefined) throw new ProtocolError(ProtocolErrorCode.InternalError, `/${outcome.name}: ${outcome.failure.message}`);
  if (outcome.error !== undefined && outcome.error !== '') throw new ProtocolError(ProtocolErrorCode.InternalError, `/${outcome.name}: ${outcome.error}`);
  if (outcome.action === 'open_panel') throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `/${outcome.name} opens a panel, which an MCP prompt cannot show; use it in an agent (or zot-ext run)`);
  const texts = [outcome.text, ...submitted.filter((s) => s.extension === outcome.extension).map((s) => s.text)];
  const messages: PromptMessage[] = texts.filter((t): t is string => t !== undefined && t.trim() !== '').map((text) => ({ role: 'user', content: { type: 'text', text } }));
  return { description: `/${outcome.name}${outcome.args === '' ? '' : ` ${outcome.args}`} (${outcome.extension})`, messages };
}
