// zot-extension-host embedded in pi's agent core: one pi `Agent`, one `ExtensionHost`, wired through
// pi's own hooks (tools, beforeToolCall, subscribe, followUp). Everything the user sees goes through `ui`.
import { Agent, type AgentEvent, type AgentTool, type BeforeToolCallContext, type BeforeToolCallResult } from '@mariozechner/pi-agent-core';
import type { AssistantMessage, ImageContent, Model, StopReason, TextContent } from '@mariozechner/pi-ai';
import { ExtensionHost, type ExtensionHostOptions, type NoteView, type StartReport, type ToolInfo, type ToolResult } from '../../dist/index.js';

/** Where the agent shows things: the conversation, and notes beside it (they arrive at any time). */
export interface Ui {
  line(text: string): void;
  note(note: NoteView): void;
}

export interface ExtensionAgentOptions {
  model: Model<string>;
  /** Finds a model for the built-in `/model <id>` command. */
  findModel: (id: string) => Model<string> | undefined;
  systemPrompt: string;
  sessionId: string;
  /** The agent's own tools: they always win over an extension's tool of the same name. */
  tools: AgentTool[];
  host: Omit<ExtensionHostOptions, 'callbacks' | 'builtinTools' | 'builtinCommands' | 'provider' | 'model'>;
  ui: Ui;
}

// pi's stop reasons as zot's `turn_end.stop` values.
const STOP: Record<StopReason, string> = { stop: 'end_turn', toolUse: 'tool_use', length: 'max_tokens', error: 'error', aborted: 'aborted' };

const textOf = (content: readonly { type: string; text?: string }[]): string =>
  content.flatMap((block) => (block.type === 'text' && block.text !== undefined ? [block.text] : [])).join('\n');

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export class ExtensionAgent {
  readonly agent: Agent;
  readonly host: ExtensionHost;
  readonly #options: ExtensionAgentOptions;
  readonly #ui: Ui;
  readonly #builtins: AgentTool[];
  /** Args rewritten by an interceptor, from beforeToolCall to the tool's execute (cleared per run). */
  readonly #rewrites = new Map<string, Record<string, unknown>>();
  #step = 0;
  #runs: Promise<void> = Promise.resolve();

  constructor(options: ExtensionAgentOptions) {
    this.#options = options;
    this.#ui = options.ui;
    this.#builtins = options.tools.map((tool) => this.#withRewrites(tool));
    const ui = options.ui;
    this.host = new ExtensionHost({
      ...options.host,
      provider: options.model.provider,
      model: options.model.id,
      builtinTools: options.tools.map((tool) => tool.name),
      builtinCommands: ['model'],
      callbacks: {
        prompt: ({ text, extension, command }) => {
          ui.line(`[${extension}] /${command} -> prompt ${JSON.stringify(text)}`);
          this.#send(text);
        },
        submit: ({ text, extension }) => {
          ui.line(`[${extension}] submit ${JSON.stringify(text)}`);
          this.#send(text);
        },
        insert: ({ text, extension }) => ui.line(`[${extension}] editor <- ${JSON.stringify(text)}`),
        display: ({ text, extension }) => ui.line(`[${extension}] ${text}`),
        notify: (note) => ui.note(note),
        toolsChanged: (tools) => {
          this.agent.state.tools = this.#toolsFor(tools);
          ui.line(`tools: ${this.agent.state.tools.map((tool) => tool.name).join(', ')}`);
        },
        warning: (warning) => ui.line(`warning: ${warning.message}`),
      },
    });
    this.agent = new Agent({
      initialState: { model: options.model, systemPrompt: options.systemPrompt, tools: this.#builtins },
      sessionId: options.sessionId,
      beforeToolCall: (context, signal) => this.#beforeToolCall(context, signal),
    });
    this.agent.subscribe((event) => this.#onEvent(event));
  }

  async start(): Promise<StartReport> {
    const report = await this.host.start();
    this.host.emit({ event: 'session_start' });
    return report;
  }

  /** The user typed `line` and waits until the agent is idle again. */
  async input(line: string): Promise<void> {
    await this.type(line);
    await this.idle();
  }

  /** The user typed `line` (also while the agent works): a slash command, or a prompt. */
  async type(line: string): Promise<void> {
    this.#ui.line(`> ${line}`);
    if (!line.startsWith('/')) return this.#send(line);
    const [name = '', ...rest] = line.slice(1).trim().split(/\s+/);
    if (name.toLowerCase() === 'model') return this.#switchModel(rest.join(' '));
    const outcome = await this.host.runCommand(line);
    if (!outcome.handled) this.#ui.line(`unknown command /${outcome.name}`);
  }

  /** Resolves once no run is active or queued. */
  async idle(): Promise<void> {
    for (;;) {
      const runs = this.#runs;
      await runs;
      await this.agent.waitForIdle();
      if (runs === this.#runs) return;
    }
  }

  async stop(): Promise<void> {
    this.agent.abort();
    await this.idle();
    await this.host.stop();
  }

  /** A prompt or an extension's submit: a new run when idle, else pi's follow-up queue. */
  #send(text: string): void {
    if (this.agent.state.isStreaming) {
      this.agent.followUp({ role: 'user', content: text, timestamp: Date.now() });
      this.#ui.line(`queued ${JSON.stringify(text)}`);
      return;
    }
    this.#runs = this.#runs.then(() => this.#run(text)).catch((error: unknown) => this.#ui.line(`error: ${String(error)}`));
  }

  async #run(text: string): Promise<void> {
    const prepared = await this.host.prepareSystemPrompt({ systemPrompt: this.#options.systemPrompt, sessionId: this.#options.sessionId });
    this.agent.state.systemPrompt = prepared.systemPrompt;
    this.#ui.line(`system prompt (${prepared.cached ? 'cached' : 'before_agent_start'}): ${JSON.stringify(prepared.systemPrompt)}`);
    await this.agent.prompt(text);
  }

  #switchModel(id: string): void {
    const model = this.#options.findModel(id);
    if (model === undefined) return this.#ui.line(`unknown model ${id}`);
    this.agent.state.model = model;
    this.host.setModel({ provider: model.provider, model: model.id }); // invalidates the system prompt
    this.#ui.line(`model: ${model.id}`);
  }

  #toolsFor(tools: readonly ToolInfo[]): AgentTool[] {
    return [...this.#builtins, ...tools.map((info) => this.#extensionTool(info))];
  }

  #extensionTool(info: ToolInfo): AgentTool {
    return this.#withRewrites({
      name: info.name,
      label: `${info.name} (${info.extension})`,
      description: info.description,
      // A plain JSON Schema: pi validates tool args with it as is.
      parameters: info.schema as AgentTool['parameters'],
      execute: async (_toolCallId, params, signal) => {
        const result = await this.host.callTool(info.name, isRecord(params) ? params : {}, { signal });
        if (result.isError) throw new Error(textOf(result.content)); // pi's way to report a failed tool
        return { content: toPiContent(result), details: { extension: result.extension, activatedTools: result.activatedTools } };
      },
    });
  }

  /** The tool runs with the args the interceptors left (pi's beforeToolCall cannot return args). */
  #withRewrites(tool: AgentTool): AgentTool {
    return {
      ...tool,
      execute: (toolCallId, params, signal, onUpdate) => {
        const rewritten = this.#rewrites.get(toolCallId);
        this.#rewrites.delete(toolCallId);
        return tool.execute(toolCallId, rewritten ?? params, signal, onUpdate);
      },
    };
  }

  async #beforeToolCall({ toolCall, args }: BeforeToolCallContext, signal?: AbortSignal): Promise<BeforeToolCallResult | undefined> {
    const input = { toolId: toolCall.id, toolName: toolCall.name, args: isRecord(args) ? args : {} };
    const decision = await this.host.intercepts.toolCall(input, { signal });
    if (decision.block) return { block: true, reason: decision.reason };
    if (decision.modified) this.#rewrites.set(toolCall.id, decision.args);
    return undefined;
  }

  // Subscribers are awaited by pi in order, so an interceptor here finishes before the run goes on.
  async #onEvent(event: AgentEvent): Promise<void> {
    switch (event.type) {
      case 'agent_start':
        this.#step = 0;
        return;
      case 'turn_start':
        this.#step += 1;
        this.host.emit({ event: 'turn_start', step: this.#step });
        return;
      case 'tool_execution_start':
        this.#ui.line(`tool ${event.toolName} ${JSON.stringify(event.args)}`);
        this.host.emit({ event: 'tool_call', tool_id: event.toolCallId, tool_name: event.toolName, tool_args: event.args });
        return;
      case 'tool_execution_end': {
        const content = (event.result as { content?: (TextContent | ImageContent)[] } | undefined)?.content ?? [];
        this.#ui.line(`  ${event.isError ? 'error' : 'result'}: ${textOf(content)}`);
        return;
      }
      case 'message_end':
        if (event.message.role === 'assistant') await this.#showAssistant(event.message);
        return;
      case 'turn_end':
        if (event.message.role === 'assistant') this.host.emit({ event: 'turn_end', stop: STOP[event.message.stopReason] });
        return;
      case 'agent_end':
        this.#rewrites.clear();
        return;
      default:
        return;
    }
  }

  async #showAssistant(message: AssistantMessage): Promise<void> {
    if (message.stopReason === 'error' || message.stopReason === 'aborted') {
      this.#ui.line(`model error: ${message.errorMessage ?? message.stopReason}`);
      return;
    }
    const text = textOf(message.content);
    if (text === '') return; // tool calls only
    const shown = await this.host.intercepts.assistantMessage({ text });
    if (shown.block) return this.#ui.line(`assistant: (hidden: ${shown.reason ?? 'blocked'})`);
    this.#ui.line(`assistant: ${shown.text}`);
    this.host.emit({ event: 'assistant_message', text: shown.text });
  }
}

function toPiContent(result: ToolResult): (TextContent | ImageContent)[] {
  return result.content.map((block) => (block.type === 'text' ? { type: 'text', text: block.text } : { type: 'image', data: block.data, mimeType: block.mimeType }));
}
