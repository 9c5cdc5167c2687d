/** `defineExtension`: the extension side of the zot protocol, as a typed builder. */
import type { HelloFrame, InterceptName, JsonObject, NotifyLevel } from '../protocol/frames.js';
import { commandFrame, Definitions, toolFrame, toolMeta, type CommandDef, type ToolDef } from './definitions.js';
import type { KnownEventName } from './events.js';
import { ExtensionSdkError, SdkErrorCode } from './errors.js';
import { withProtocolExtensions } from './requests.js';
import { panelRenderFrame, type PanelView } from './responses.js';
import { toolSchema, type ZodSchema } from './schema.js';
import type { StandardSchemaV1 } from './standard-schema.js';
import { Session } from './session.js';
import { guardStdout } from './stdio.js';
import type {
  CommandHandler,
  EventHandler,
  HelloHandler,
  HostInfo,
  InterceptHandler,
  PanelCloseHandler,
  PanelHandle,
  PanelKeyHandler,
  ToolHandler,
} from './types.js';

export interface ExtensionOptions {
  /** Must match the `name` in extension.json. */
  name: string;
  version?: string | undefined;
  /**
   * Sent in `hello`, followed by the protocol extensions the SDK always declares ("cancel",
   * "progress", "trace": inert unless the host grants them in `hello_ack.capabilities`). Add
   * "tool_cancel" to get zot's own `tool_cancel` frame, handled as "cancel" (not declared by default).
   * @default derived at `run()` from what is registered by then:
   * "commands", "tools", "events", "intercept", "panels"
   */
  capabilities?: readonly string[] | undefined;
  /**
   * Lets handlers run tools through the host with `ctx.callTool` (zot's `call_tool`): declares
   * "call_tool" in `hello` (as listing it in `capabilities` does). @default false
   */
  callTools?: boolean | undefined;
}

export interface CommandOptions {
  /** Shown in the host's command list. */
  description?: string | undefined;
}

export interface ToolOptions {
  /** Tells the model what the tool does. */
  description?: string | undefined;
  /**
   * Registered but not advertised until a tool result names it in `activateTools`.
   * @default false
   */
  deferred?: boolean | undefined;
  /**
   * Its calls wait for the user (a panel opened with `ctx.ask` / `ctx.openPanel`): the host applies
   * no default reply deadline to them (zot's `register_tool.interactive`). @default false
   */
  interactive?: boolean | undefined;
  // zot's tool metadata (docs/protocol.md "zot versions"); each sent only when given.
  /** JSON Schema of the result's `structuredContent`. */
  outputSchema?: unknown;
  /** Groups tools for discovery (zot: the extension name when absent). */
  namespace?: string | undefined;
  namespaceDescription?: string | undefined;
  namespaceInstructions?: string | undefined;
  /** zot's exposure; `'deferred'` is a deferred tool (and overrides `deferred`). @default 'direct' */
  exposure?: 'direct' | 'codemode' | 'deferred' | 'model-only' | undefined;
  /** What a durable host may do with an interrupted call. @default 'never' */
  replay?: 'never' | 'safe' | 'idempotent' | 'reconcile' | undefined;
}

export interface StandardSchemaToolOptions<S extends StandardSchemaV1> extends ToolOptions {
  /**
   * Any Standard Schema validator (zod 3.24+ and 4, valibot 1, arktype 2...): args are validated
   * with it before the handler runs, which gets the validated (output) value.
   */
  schema: S;
  /**
   * The JSON Schema sent to the host (it must describe an object). Required when the validator
   * cannot produce one itself (zod 3, valibot): a definition without it throws `INVALID_DEFINITION`.
   * @default converted from `schema`: zod 4 with `z.toJSONSchema` (input side), others through their
   * Standard JSON Schema converter (`~standard.jsonSchema`)
   */
  jsonSchema?: JsonObject | undefined;
}

/** A tool validated by a zod 4 schema (its JSON Schema is derived); the zod case of {@link StandardSchemaToolOptions}. */
export interface ZodToolOptions<S extends ZodSchema> extends StandardSchemaToolOptions<S> {}

export interface JsonSchemaToolOptions extends ToolOptions {
  /** Sent to the host as is; args reach the handler unvalidated. @default { type: 'object', properties: {} } */
  schema?: JsonObject | undefined;
}

export interface RunOptions {
  /** Frames from the host. @default process.stdin */
  input?: NodeJS.ReadableStream | undefined;
  /**
   * Frames to the host. @default process.stdout, which is then kept for frames only: other writes
   * to it (console.log, console.info, ...) go to stderr while the extension runs.
   */
  output?: NodeJS.WritableStream | undefined;
  /** Diagnostics (bad input lines, handler failures). @default process.stderr */
  stderr?: NodeJS.WritableStream | undefined;
  /**
   * Called with the exit code once the run ended and the output drained.
   * @default process.exit when neither `input` nor `output` is given, otherwise nothing
   */
  exit?: ((code: number) => void) | undefined;
}

/** An extension definition; create it with {@link defineExtension}. */
export class Extension {
  readonly name: string;
  readonly version: string | undefined;
  private readonly capabilities: readonly string[] | undefined;
  private readonly callTools: boolean;
  private readonly defs = new Definitions();
  private session: Session | undefined;
  private hostInfo: HostInfo | undefined;
  /** One-way frames issued before the first run; sent after its `ready`. */
  private outbox: object[] = [];
  private ranOnce = false;

  /** @internal use {@link defineExtension} */
  constructor(options: ExtensionOptions) {
    if (typeof options?.name !== 'string' || options.name.trim().length === 0) {
      throw new ExtensionSdkError(SdkErrorCode.INVALID_DEFINITION, 'defineExtension: `name` must be a non-empty string');
    }
    this.name = options.name;
    this.version = options.version;
    this.capabilities = options.capabilities;
    this.callTools = options.callTools === true;
  }

  /** The host's `hello_ack` information; undefined until the handshake of a run. */
  get host(): HostInfo | undefined {
    return this.hostInfo;
  }

  /**
   * Runs after `hello_ack`, before registrations are announced: register more here based on the
   * host (cwd, provider, model...). Handlers run in order; a throw is logged and the run goes on.
   */
  onHello(handler: HelloHandler): this {
    if (typeof handler !== 'function') {
      throw new ExtensionSdkError(SdkErrorCode.INVALID_DEFINITION, 'onHello: the handler must be a function');
    }
    this.defs.helloHandlers.push(handler);
    return this;
  }

  /** Registers a slash command (names are case-insensitive; give it without the "/"). */
  command(name: string, handler: CommandHandler): this;
  command(name: string, options: CommandOptions, handler: CommandHandler): this;
  command(name: string, optionsOrHandler: CommandOptions | CommandHandler, maybeHandler?: CommandHandler): this {
    const [options, handler] =
      typeof optionsOrHandler === 'function' ? [{}, optionsOrHandler] : [optionsOrHandler ?? {}, maybeHandler];
    const def: CommandDef = { name, description: options.description, handler: handler as CommandHandler };
    this.defs.addCommand(def);
    this.session?.announce(commandFrame(def));
    return this;
  }

  /**
   * Registers a tool the model can call. With a validator schema (zod, valibot, ...) the args are
   * validated first (a failure is answered as an error naming the bad fields) and typed; with a
   * JSON Schema they are not.
   */
  tool<S extends StandardSchemaV1>(
    name: string,
    options: StandardSchemaToolOptions<S>,
    handler: ToolHandler<StandardSchemaV1.InferOutput<S>>,
  ): this;
  tool(name: string, options: JsonSchemaToolOptions, handler: ToolHandler<JsonObject>): this;
  tool(
    name: string,
    options: ToolOptions & { schema?: StandardSchemaV1 | JsonObject | undefined; jsonSchema?: JsonObject | undefined },
    handler: ToolHandler<never>,
  ): this {
    const { jsonSchema, validator } = toolSchema(name, options?.schema, options?.jsonSchema);
    const def: ToolDef = {
      name,
      description: options?.description,
      jsonSchema,
      validator,
      deferred: options?.deferred === true,
      interactive: options?.interactive === true,
      meta: toolMeta(options),
      handler,
    };
    this.defs.addTool(def);
    this.session?.announce(toolFrame(def));
    return this;
  }

  /**
   * Observes a lifecycle event (subscribed automatically). Known events (the spec's and those zot
   * added: `session_end`, `user_prompt_submit`, `tool_result`, `permission_decision`, `pre_compact`,
   * `post_compact`, `subagent_start`, `subagent_stop`) get typed payloads; any other name is passed
   * through for hosts that emit their own events. Handlers run concurrently.
   */
  on<E extends KnownEventName | (string & {})>(event: E, handler: EventHandler<E>): this {
    this.defs.addEvent(event, handler as EventHandler<string>);
    this.announceSubscriptions();
    return this;
  }

  /** Intercepts an event before it happens (one interceptor per event). Returning nothing allows it. */
  intercept<K extends InterceptName>(event: K, handler: InterceptHandler<K>): this {
    this.defs.addInterceptor(event, handler as unknown as InterceptHandler<InterceptName>);
    this.announceSubscriptions();
    return this;
  }

  /** Handles keys of a panel; keys of one panel arrive in order, each after the previous settled. */
  onPanelKey(panelId: string, handler: PanelKeyHandler): this {
    this.defs.addPanelHandler(this.defs.panelKeys, 'onPanelKey', panelId, handler);
    return this;
  }

  /** Called when the user closes the panel in the host (after its pending keys). */
  onPanelClose(panelId: string, handler: PanelCloseHandler): this {
    this.defs.addPanelHandler(this.defs.panelCloses, 'onPanelClose', panelId, handler);
    return this;
  }

  /** A handle to render or close a panel (open it with the `openPanel()` command response). */
  panel(id: string): PanelHandle {
    return {
      id,
      render: (view: PanelView) => this.sendOneWay(panelRenderFrame(id, view)),
      close: () => this.sendOneWay({ type: 'panel_close', panel_id: id }),
    };
  }

  /** Shows a one-shot note with this extension's name. The level comes first (Python's SDK: `notify(message, level="info")`). */
  notify(level: NotifyLevel, message: string): void {
    this.sendOneWay({ type: 'notify', level, message });
  }

  /** Removes every note this extension pushed. */
  clearNotes(): void {
    this.sendOneWay({ type: 'clear_notes' });
  }

  /** Submits `text` as a user prompt. */
  submit(text: string): void {
    this.sendOneWay({ type: 'submit', text });
  }

  /**
   * Speaks the protocol until the host says `shutdown` (answered with `shutdown_ack`) or the input
   * ends; resolves then. Sends `hello`, waits for `hello_ack`, runs the onHello handlers, announces
   * every registration and one `subscribe`, then `ready`. Requests are handled concurrently.
   */
  async run(options: RunOptions = {}): Promise<void> {
    if (this.session) {
      throw new ExtensionSdkError(SdkErrorCode.ALREADY_RUNNING, `extension "${this.name}" is already running`);
    }
    const onStdio = options.input === undefined && options.output === undefined;
    const input = options.input ?? process.stdin;
    const output = options.output ?? process.stdout;
    const guard = output === process.stdout ? guardStdout() : undefined;
    const write =
      guard?.write ??
      ((chunk: string, callback: (err?: Error | null) => void) => output.write(chunk, callback));
    const exit = options.exit ?? (onStdio ? (code: number) => process.exit(code) : undefined);
    const hello: HelloFrame = {
      type: 'hello',
      name: this.name,
      ...(this.version === undefined ? {} : { version: this.version }),
      capabilities: withProtocolExtensions(this.capabilities ?? this.defs.capabilities(), this.callTools),
    };
    const session = new Session({
      name: this.name,
      hello,
      defs: this.defs,
      input,
      output,
      write,
      stderr: options.stderr ?? process.stderr,
      pending: this.ranOnce ? [] : this.outbox.splice(0),
      onHost: (host) => {
        this.hostInfo = host;
      },
    });
    this.session = session;
    this.ranOnce = true;
    let code: number;
    try {
      code = await session.start();
    } finally {
      this.session = undefined;
      guard?.restore();
      if (input === process.stdin) process.stdin.pause();
    }
    exit?.(code);
  }

  private sendOneWay(frame: object): void {
    if (this.session) this.session.sendOneWay(frame);
    else if (!this.ranOnce) this.outbox.push(frame);
  }

  private announceSubscriptions(): void {
    const frame = this.defs.subscribeFrame();
    if (frame) this.session?.announce(frame);
  }
}

/**
 * Defines an extension. Register commands, tools, events, interceptors and panels on the result,
 * then call `run()` (usually the last line of the entry file).
 */
export function defineExtension(options: ExtensionOptions): Extension {
  return new Extension(options);
}
