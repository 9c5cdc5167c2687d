// An MCP server as an extension: the adapter at the transport seam. One side is an MCP client
// session (the official SDK, `@modelcontextprotocol/client`, an optional peer loaded here on first
// use); the other side is our NDJSON frames, as if an extension wrote them: `hello`, one
// `register_tool` per MCP tool and one `register_command` per prompt, then `ready`; `tool_call` ->
// `tools/call` -> `tool_result`, MCP progress -> `progress`, our `cancel` -> MCP cancellation,
// `tools/list_changed` -> `unregister_tool` / `register_tool`. Everything above (the connection,
// deadlines, the lifecycle and restarts, scopes, the intercept chain) sees an extension like any other.
//
// A stdio server is spawned by our own StdioTransport (env policy, stderr to the extension's log,
// the frame cap, process-tree shutdown): its lines are MCP JSON-RPC messages, handed to the SDK
// through a small SDK transport (`LineWire`).
import type { Client as McpClient, JSONRPCMessage, Transport as McpWireTransport } from '@modelcontextprotocol/client';
import { EventEmitter } from 'eventemitter3';
import { ErrorCode, ExtensionHostError } from '../errors.js';
import type { McpServerConfig } from '../manifest/mcp.js';
import { redactUrl, resolveHeaders } from '../manifest/remote.js';
import { VERSION } from '../version.js';
import { loadSpawn } from './child.js';
import type { ExtensionLog } from './log.js';
import { hostToolName, type McpPrompt, type McpTool, progressOf, promptArguments, promptCommandName, promptText, registerCommandOf, registerToolOf, toolErrorOf, toolResultOf } from './mcp-map.js';
import type { SandboxLaunch } from './sandbox.js';
import { StdioTransport } from './stdio.js';
import type { Transport, TransportCloseOptions, TransportEvents, TransportExit, TransportFault, TransportWatcher } from './transport.js';

type Sdk = typeof import('@modelcontextprotocol/client');
let sdk: Sdk | undefined;

/** The MCP SDK, loaded once, on first use: a host without MCP servers never loads it. */
async function loadSdk(): Promise<Sdk> {
  return (sdk ??= await import('@modelcontextprotocol/client'));
}

/** The SDK's own request timeout, out of the way: the host's deadline (and its `cancel`) rules. */
const NO_SDK_TIMEOUT = 2_147_483_647;

/** How long after a tools/list_changed the list is fetched again (later ones meanwhile join it). */
const LIST_CHANGED_DEBOUNCE_MS = 50;
/** The least time between two refetches of the tool list: a flood of tools/list_changed is one refetch a second (the last change is always fetched). */
const LIST_CHANGED_MIN_INTERVAL_MS = 1000;

/** What the adapter declares in its `hello`: it cancels, reports progress and withdraws tools. */
const CAPABILITIES = ['tools', 'commands', 'cancel', 'progress', 'unregister'];

/** A fetch that found no server (refused, reset, no route): not an answer of the server's. */
function unreachable(err: unknown): boolean {
  const code = (err as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return err instanceof TypeError && typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|UND_ERR_SOCKET|UND_ERR_CLOSED)$/.test(code);
}

/** An SDK error in words: its message, and the HTTP status of a refused request. */
function describe(err: unknown): string {
  const status = (err as { data?: { status?: unknown; statusText?: unknown } } | undefined)?.data;
  const http = typeof status?.status === 'number' ? ` (HTTP ${status.status}${typeof status.statusText === 'string' && status.statusText !== '' ? ` ${status.statusText}` : ''})` : '';
  return `${err instanceof Error ? err.message.trim() : String(err)}${http}`;
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof Error ? cause.message : err instanceof Error ? err.message : String(err);
}

export interface McpTransportOptions {
  /** The extension name: its prompts are `/<name>:<prompt>`. */
  name: string;
  /** The extension directory: a stdio server's cwd, where a relative `command` is resolved. */
  dir: string;
  server: McpServerConfig;
  /** A stdio server's environment (the env policy's), and where `env:NAME` header values come from. @default process.env */
  env?: NodeJS.ProcessEnv | undefined;
  log: ExtensionLog;
  maxFrameBytes: number;
  shutdownMs?: number | undefined;
  killMs?: number | undefined;
  /** A stdio server's OS sandbox (the spawn is confined as an extension's is); undefined: none. */
  sandbox?: SandboxLaunch | undefined;
}

/** The SDK's transport over our stdio transport's lines (one JSON-RPC message a line). */
class LineWire implements McpWireTransport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined;

  private gone = false;

  constructor(private readonly stdio: StdioTransport) {}

  start(): Promise<void> {
    // A server gone before the session began (a spawn error reported a tick late): nothing to wait for.
    return this.gone ? Promise.reject(new Error('the server is gone')) : Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.stdio.send(JSON.stringify(message));
    return Promise.resolve();
  }

  async close(): Promise<void> {
    await this.stdio.close('closed', { graceful: true });
    this.ended();
  }

  /** The server is gone: the SDK settles what it still waits for (and clears their timers). */
  ended(): void {
    this.gone = true;
    const onclose = this.onclose;
    this.onclose = undefined;
    onclose?.();
  }
}

export class McpTransport extends EventEmitter<TransportEvents> implements Transport, TransportWatcher {
  private readonly options: McpTransportOptions;
  private stdio: StdioTransport | undefined;
  private wire: McpWireTransport | undefined;
  private client: McpClient | undefined;
  private receiver: ((line: string) => void) | undefined;
  private context: unknown;
  private watcher: TransportWatcher | undefined;
  private partial = '';
  private helloSent = false;
  /** A tool list that came (list_changed) before the hello: registered with it. */
  private earlyTools: readonly McpTool[] | undefined;
  private ended = false;
  /** An HTTP response went over the frame cap (its fault was reported): nothing more is delivered. */
  private oversized = false;
  private exitStatus: TransportExit | undefined;
  private readonly prefix: string;
  /** Tool calls under way, by our request id. */
  private readonly calls = new Map<string, AbortController>();
  /** Host tool name -> MCP tool name. */
  private tools = new Map<string, string>();
  /** Host tool name -> its register_tool line (a changed one is registered again). */
  private registered = new Map<string, string>();
  /** Command name (lower case) -> MCP prompt. */
  private prompts = new Map<string, McpPrompt>();
  /** The tool list's refetch after tools/list_changed: its timer, whether one runs (and another is due after it), when the last began. */
  private readonly refetch: { timer: NodeJS.Timeout | undefined; running: boolean; again: boolean; last: number } = { timer: undefined, running: false, again: false, last: -Infinity };

  constructor(options: McpTransportOptions) {
    super();
    this.options = options;
    this.prefix = options.server.prefix ?? '';
  }

  get pid(): number | undefined {
    return this.stdio?.pid;
  }

  get url(): string | undefined {
    return 'url' in this.options.server ? redactUrl(this.options.server.url) : undefined;
  }

  get writable(): boolean {
    return !this.ended && this.client !== undefined;
  }

  get writing(): boolean {
    return false;
  }

  watch(watcher: TransportWatcher): void {
    this.watcher = watcher;
  }

  async prepare(): Promise<void> {
    if ('command' in this.options.server) await loadSpawn();
  }

  async start(receiver?: (line: string) => void, context?: unknown): Promise<void> {
    this.receiver = receiver;
    this.context = context;
    const { name, log, server } = this.options;
    let loaded: Sdk;
    try {
      loaded = await loadSdk();
    } catch (err) {
      throw this.fail(`cannot start ${name}: an MCP server needs the optional peer dependency @modelcontextprotocol/client (npm i @modelcontextprotocol/client): ${(err as Error).message}`, err);
    }
    if ('command' in server) {
      const stdio = new StdioTransport({
        name,
        dir: this.options.dir,
        log,
        exec: server.command,
        args: server.args,
        env: server.env === undefined ? this.options.env : { ...(this.options.env ?? process.env), ...server.env },
        maxFrameBytes: this.options.maxFrameBytes,
        shutdownMs: this.options.shutdownMs,
        killMs: this.options.killMs,
        sandbox: this.options.sandbox,
      });
      stdio.watch(this);
      this.stdio = stdio;
      const wire = (this.wire = new LineWire(stdio));
      await stdio.start(this.serverLine, this);
      this.connect(loaded, wire);
      return;
    }
    const headers = resolveHeaders(server.headers, this.options.env ?? process.env);
    if (!headers.ok) throw this.fail(`cannot connect to ${name}: header ${headers.header} is env:${headers.variable}, and ${headers.variable} ${headers.problem} in the host environment`);
    try {
      await (await log.openForChild(`connect ${name}: ${this.url ?? ''}`)).close();
    } catch (err) {
      throw this.fail(`cannot connect to ${name}: cannot open log file ${log.path}: ${(err as Error).message}`, err);
    }
    const wire = new loaded.StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: headers.headers }, fetch: this.boundedFetch });
    this.wire = wire;
    this.connect(loaded, wire);
  }

  /** The MCP handshake, then our hello and registrations; a server that never initialises gets the hello timeout. */
  private connect(loaded: Sdk, wire: McpWireTransport): void {
    if (this.ended) return;
    const client = new loaded.Client(
      { name: 'zot-extension-host', version: VERSION },
      {
        listChanged: {
          // Refetched by listChanged(): 50 ms after a first notification, at most once a second in a flood.
          tools: { autoRefresh: false, debounceMs: 0, onChanged: () => this.toolsListChanged() },
        },
      },
    );
    this.client = client;
    client.onerror = (error: Error) => this.logLine(`MCP: ${error.message}`);
    void (async () => {
      await client.connect(wire, { timeout: NO_SDK_TIMEOUT });
      const info = client.getServerVersion();
      const caps = client.getServerCapabilities() ?? {};
      const tools = caps.tools !== undefined ? (await client.listTools(undefined, { timeout: NO_SDK_TIMEOUT })).tools : [];
      const prompts = caps.prompts !== undefined ? (await client.listPrompts(undefined, { timeout: NO_SDK_TIMEOUT })).prompts : [];
      if (this.ended) return;
      this.logLine(`MCP session: ${info?.name ?? '?'} ${info?.version ?? ''}, ${tools.length} tools, ${prompts.length} prompts`.trimEnd());
      const hello: Record<string, unknown> = { type: 'hello', name: this.options.name, capabilities: CAPABILITIES };
      if (typeof info?.version === 'string') hello.version = info.version;
      this.deliver(hello);
      this.helloSent = true;
      // Before the hello a failed start says why (below); from now on the session's end is the exit.
      if (this.stdio === undefined) client.onclose = () => this.remoteEnded('the MCP session closed');
      this.syncTools(this.earlyTools ?? (tools as McpTool[]));
      for (const prompt of prompts as McpPrompt[]) {
        const command = promptCommandName(this.options.name, prompt.name);
        this.prompts.set(command.toLowerCase(), prompt);
        this.deliver(registerCommandOf(command, prompt));
      }
      this.deliver({ type: 'ready' });
    })().catch((err: unknown) => {
      if (this.ended) return;
      const problem = `MCP initialisation failed: ${describe(err)}`;
      if (this.stdio === undefined) {
        // The session's end is the extension's exit, in these words (the host's EXITED_BEFORE_HELLO).
        void client.close().catch(() => undefined);
        this.remoteEnded(problem);
        return;
      }
      // Logged first: the host's EXITED_BEFORE_HELLO quotes the log's last lines.
      this.logLine(problem);
      void this.terminate();
    });
  }

  /**
   * A tools/list_changed: the list is fetched again 50 ms later (notifications meanwhile join it), and
   * never sooner than LIST_CHANGED_MIN_INTERVAL_MS after the previous fetch began; one that comes while
   * a fetch runs gets a fetch after it (the last change is never lost).
   */
  private toolsListChanged(): void {
    const r = this.refetch;
    if (this.ended) return;
    if (r.running) {
      r.again = true;
      return;
    }
    if (r.timer !== undefined) return;
    const wait = Math.max(LIST_CHANGED_DEBOUNCE_MS, r.last + LIST_CHANGED_MIN_INTERVAL_MS - performance.now());
    r.timer = setTimeout(() => void this.refetchTools(), wait);
  }

  private async refetchTools(): Promise<void> {
    const r = this.refetch;
    r.timer = undefined;
    if (this.ended || this.client === undefined) return;
    r.running = true;
    r.last = performance.now();
    try {
      const { tools } = await this.client.listTools(undefined, { timeout: NO_SDK_TIMEOUT, cacheMode: 'refresh' });
      this.syncTools(tools as McpTool[]);
    } catch (err) {
      this.logLine(`tools/list after list_changed failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      r.running = false;
      if (r.again) {
        r.again = false;
        this.toolsListChanged();
      }
    }
  }

  /**
   * The server's tools as registrations: new and changed ones registered, gone and changed ones
   * withdrawn (`unregister_tool`), all in one turn so that the host announces one change.
   */
  private syncTools(list: readonly McpTool[]): void {
    if (this.ended) return;
    if (!this.helloSent) {
      this.earlyTools = list;
      return;
    }
    const tools = new Map<string, string>();
    const lines = new Map<string, Record<string, unknown>>();
    for (const tool of list) {
      const hostName = hostToolName(this.prefix, tool.name);
      if (tools.has(hostName)) {
        this.logLine(`MCP tool ${JSON.stringify(tool.name)} is ${hostName} like ${JSON.stringify(tools.get(hostName))}: skipped`);
        continue;
      }
      tools.set(hostName, tool.name);
      lines.set(hostName, registerToolOf(hostName, tool));
    }
    const before = this.registered;
    const after = new Map<string, string>();
    for (const [hostName, frame] of lines) after.set(hostName, JSON.stringify(frame));
    this.tools = tools;
    this.registered = after;
    for (const [hostName, line] of before) if (after.get(hostName) !== line) this.deliver({ type: 'unregister_tool', name: hostName });
    for (const [hostName, line] of after) if (before.get(hostName) !== line) this.deliver(lines.get(hostName)!);
  }

  /**
   * The HTTP transport's fetch: a response body is counted as it arrives, before the SDK buffers or
   * parses it. A JSON body (one message), or one event of an SSE stream, larger than the frame cap
   * is a `frame_too_large` fault, and the body errors: nothing more of it is read.
   */
  private readonly boundedFetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const response = await fetch(url, init);
    const body = response.body;
    if (body === null) return response;
    const limit = this.options.maxFrameBytes;
    const events = (response.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream');
    // Bytes since the last event boundary (an empty line) of an SSE stream, or of the whole body.
    let size = 0;
    let lf = false;
    const counted = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (chunk, controller) => {
          if (!events) size += chunk.byteLength;
          else {
            for (let i = 0; i < chunk.length; i++) {
              const byte = chunk[i]!;
              if (byte === 10) {
                if (lf) size = 0;
                lf = true;
              } else if (byte !== 13) {
                lf = false;
                size++;
                if (size > limit) break;
              }
            }
          }
          if (size > limit) {
            this.tooLarge(size, limit);
            controller.error(new Error(`the MCP server sent a message of more than ${limit} bytes`));
            return;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };

  /** An HTTP server's message over the frame cap: the fault of an oversized line, and nothing more of it is delivered. */
  private tooLarge(bytes: number, limit: number): void {
    if (this.oversized || this.ended) return;
    this.oversized = true;
    this.logLine(`the MCP server sent a message of more than ${limit} bytes (${bytes} seen): not read further`);
    this.fault({ kind: 'frame_too_large', bytes, limit });
  }

  /** One frame to the host, bounded like an extension's line. */
  private deliver(frame: Record<string, unknown>): void {
    if (this.ended || this.oversized) return;
    const line = JSON.stringify(frame);
    const limit = this.options.maxFrameBytes;
    // A string's UTF-8 size is at most 3 bytes a UTF-16 unit: count only when it may be over.
    if (line.length * 3 > limit) {
      const bytes = Buffer.byteLength(line);
      if (bytes > limit) {
        this.fault({ kind: 'frame_too_large', bytes, limit });
        return;
      }
    }
    this.deliverRaw(line);
  }

  /** Internal (the stdio transport's receiver): one line of the server's stdout. */
  serverLine(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      // Not JSON: to the host as it is, which counts and reports it (NOT_JSON) like any extension's.
      this.deliverRaw(line);
      return;
    }
    let parsed: JSONRPCMessage;
    try {
      parsed = sdk!.parseJSONRPCMessage(message);
    } catch (err) {
      this.logLine(`MCP: not a JSON-RPC message (${err instanceof Error ? err.message.slice(0, 200) : String(err)}): ${line.slice(0, 200)}`);
      return;
    }
    this.wire?.onmessage?.(parsed);
  }

  /** One line to the host as it is (deliver() after its checks; a stdio server's line that is not JSON). */
  private deliverRaw(line: string): void {
    if (this.ended) return;
    const { receiver } = this;
    if (receiver === undefined) this.emit('line', line);
    else receiver.call(this.context, line);
  }

  send(line: string): boolean {
    if (!this.writable) return false;
    this.hostLine(line);
    return true;
  }

  write(chunk: string, _done: () => void, _context?: unknown): boolean {
    let from = 0;
    for (let lf = chunk.indexOf('\n'); lf !== -1; lf = chunk.indexOf('\n', from)) {
      const line = this.partial + chunk.slice(from, lf);
      this.partial = '';
      from = lf + 1;
      if (line !== '') this.hostLine(line);
    }
    if (from < chunk.length) this.partial += chunk.slice(from);
    return true;
  }

  /** One frame of the host. */
  private hostLine(line: string): void {
    if (this.ended || this.client === undefined) return;
    let frame: Record<string, unknown>;
    try {
      frame = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    switch (frame.type) {
      case 'tool_call':
        this.callTool(String(frame.id), String(frame.name), (frame.args ?? {}) as Record<string, unknown>);
        return;
      case 'cancel':
      case 'tool_cancel':
        this.calls.get(String(frame.id))?.abort(typeof frame.reason === 'string' ? frame.reason : 'cancelled');
        return;
      case 'command_invoked':
        this.getPrompt(String(frame.id), String(frame.name), String(frame.args ?? ''));
        return;
      case 'shutdown':
        this.deliver({ type: 'shutdown_ack' });
        return;
      default:
        // hello_ack, events: nothing to do for an MCP server.
        return;
    }
  }

  private callTool(id: string, hostName: string, args: Record<string, unknown>): void {
    const client = this.client!;
    const controller = new AbortController();
    this.calls.set(id, controller);
    const name = this.tools.get(hostName) ?? hostName;
    client
      .callTool({ name, arguments: args }, { signal: controller.signal, timeout: NO_SDK_TIMEOUT, onprogress: (progress) => this.deliver(progressOf(id, progress)) })
      .then(
        (result) => this.deliver(toolResultOf(id, result)),
        (err: unknown) => {
          // Cancelled: the host settled the call already (and the SDK told the server).
          if (controller.signal.aborted) return;
          // An HTTP server that cannot be reached any more is gone: its exit (a restart reconnects).
          if (this.stdio === undefined && unreachable(err)) this.remoteEnded(`the MCP server is unreachable: ${causeOf(err)}`);
          else this.deliver(toolErrorOf(id, err));
        },
      )
      .finally(() => this.calls.delete(id));
  }

  private getPrompt(id: string, command: string, text: string): void {
    const prompt = this.prompts.get(command.toLowerCase());
    if (prompt === undefined) {
      this.deliver({ type: 'command_response', id, error: `no MCP prompt for /${command}` });
      return;
    }
    this.client!.getPrompt({ name: prompt.name, arguments: promptArguments(text, prompt) }, { timeout: NO_SDK_TIMEOUT }).then(
      (result) => this.deliver({ type: 'command_response', id, action: 'prompt', prompt: promptText(result) }),
      (err: unknown) => this.deliver({ type: 'command_response', id, error: `MCP error: ${err instanceof Error ? err.message : String(err)}` }),
    );
  }

  // The stdio transport's events (TransportWatcher): passed on as this transport's.

  /** Internal (TransportWatcher). */
  transportFault(fault: TransportFault): void {
    this.fault(fault);
  }

  /** Internal (TransportWatcher). */
  transportExit(exit: TransportExit): void {
    this.exitStatus = exit;
    this.watcher?.transportExit(exit);
    this.emit('exit', exit);
  }

  /** Internal (TransportWatcher). */
  transportClose(exit: TransportExit): void {
    this.finish(exit);
  }

  private fault(fault: TransportFault): void {
    this.watcher?.transportFault(fault);
    this.emit('error', fault);
  }

  /** An HTTP server's session ended (closed, or the server is gone): its exit. */
  private remoteEnded(status: string): void {
    if (this.ended || this.exitStatus !== undefined) return;
    const exit: TransportExit = { code: null, signal: null, status };
    this.logLine(status);
    this.transportExit(exit);
    this.finish(exit);
  }

  private finish(exit: TransportExit): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.refetch.timer);
    this.refetch.timer = undefined;
    for (const controller of this.calls.values()) controller.abort('closed');
    this.calls.clear();
    // The SDK's pending requests end with the session.
    if (this.wire instanceof LineWire) this.wire.ended();
    else void this.client?.close().catch(() => undefined);
    this.watcher?.transportClose(exit);
    this.emit('close', exit);
  }

  closeInput(): void {
    if (this.stdio !== undefined) this.stdio.closeInput();
    else void this.terminate();
  }

  async close(reason?: string, options: TransportCloseOptions = {}): Promise<void> {
    if (this.stdio !== undefined) {
      // Our frames (the goodbye) are not for the server: the end of its stdin is its goodbye.
      await this.stdio.close(reason, { graceful: options.graceful });
      return;
    }
    if (this.ended) return;
    const wire = this.wire as { terminateSession?: () => Promise<void> } | undefined;
    if (options.graceful !== false) await wire?.terminateSession?.().catch(() => undefined);
    await this.terminate();
  }

  async terminate(): Promise<void> {
    if (this.stdio !== undefined) {
      await this.stdio.terminate();
      return;
    }
    if (this.ended) return;
    await this.client?.close().catch(() => undefined);
    this.remoteEnded('closed by the host');
  }

  private logLine(message: string): void {
    void this.options.log.write(message);
  }

  private fail(message: string, cause?: unknown): ExtensionHostError {
    const { name, log } = this.options;
    const full = `${message}; see ${log.path}`;
    void log.write(full);
    return new ExtensionHostError(ErrorCode.SPAWN_FAILED, full, { extension: name, logPath: log.path, cause });
  }
}
