/** Everything an extension registered, and the frames that announce it. */
import {
  INTERCEPT_NAMES,
  type InterceptName,
  type JsonObject,
  type RegisterCommandFrame,
  type RegisterToolFrame,
  type SubscribeFrame,
} from '../protocol/frames.js';
import { TOOL_NAME } from '../protocol/limits.js';
import { ExtensionSdkError, SdkErrorCode } from './errors.js';
import type { ToolOptions } from './extension.js';
import type { StandardSchemaV1 } from './standard-schema.js';
import type {
  CommandHandler,
  EventHandler,
  HelloHandler,
  InterceptHandler,
  PanelCloseHandler,
  PanelKeyHandler,
  ToolHandler,
} from './types.js';

export interface CommandDef {
  name: string;
  description: string | undefined;
  handler: CommandHandler;
}

export interface ToolDef {
  name: string;
  description: string | undefined;
  jsonSchema: JsonObject;
  /** Present when args are validated before the handler runs. */
  validator: StandardSchemaV1 | undefined;
  deferred: boolean;
  interactive: boolean;
  /** zot's metadata, as wire fields, only those given. */
  meta: Partial<RegisterToolFrame>;
  handler: ToolHandler<never>;
}

/** zot's tool metadata of the tool options, as wire fields (only those given). */
export function toolMeta(options: ToolOptions | undefined): Partial<RegisterToolFrame> {
  const meta: Partial<RegisterToolFrame> = {};
  if (options === undefined) return meta;
  if (options.outputSchema !== undefined) meta.output_schema = options.outputSchema;
  if (options.namespace !== undefined) meta.namespace = options.namespace;
  if (options.namespaceDescription !== undefined) meta.namespace_description = options.namespaceDescription;
  if (options.namespaceInstructions !== undefined) meta.namespace_instructions = options.namespaceInstructions;
  if (options.exposure !== undefined) meta.exposure = options.exposure;
  if (options.replay !== undefined) meta.replay = options.replay;
  return meta;
}

function invalid(message: string): ExtensionSdkError {
  return new ExtensionSdkError(SdkErrorCode.INVALID_DEFINITION, message);
}

export function assertHandler(what: string, handler: unknown): void {
  if (typeof handler !== 'function') throw invalid(`${what}: the handler must be a function`);
}

export class Definitions {
  readonly helloHandlers: HelloHandler[] = [];
  /** Keyed by lower-cased name: command names are case-insensitive. */
  readonly commands = new Map<string, CommandDef>();
  readonly tools = new Map<string, ToolDef>();
  readonly events = new Map<string, EventHandler<string>[]>();
  readonly interceptors = new Map<InterceptName, InterceptHandler<InterceptName>>();
  readonly panelKeys = new Map<string, PanelKeyHandler>();
  readonly panelCloses = new Map<string, PanelCloseHandler>();

  addCommand(def: CommandDef): void {
    if (def.name.length === 0 || /\s/.test(def.name) || def.name.startsWith('/')) {
      throw invalid(`command ${JSON.stringify(def.name)}: a name is one word without spaces or a leading "/"`);
    }
    assertHandler(`command "${def.name}"`, def.handler);
    const existing = this.commands.get(def.name.toLowerCase());
    if (existing) throw invalid(`command "${def.name}" is already registered (as "${existing.name}")`);
    this.commands.set(def.name.toLowerCase(), def);
  }

  addTool(def: ToolDef): void {
    if (!TOOL_NAME.test(def.name)) {
      throw invalid(`tool ${JSON.stringify(def.name)}: a name is 1-64 characters of a-z, A-Z, 0-9, "_" and "-"`);
    }
    assertHandler(`tool "${def.name}"`, def.handler);
    if (this.tools.has(def.name)) throw invalid(`tool "${def.name}" is already registered`);
    this.tools.set(def.name, def);
  }

  addEvent(event: string, handler: EventHandler<string>): void {
    if (event.length === 0) throw invalid('an event name must not be empty');
    assertHandler(`event "${event}"`, handler);
    const list = this.events.get(event);
    if (list) list.push(handler);
    else this.events.set(event, [handler]);
  }

  addInterceptor(event: InterceptName, handler: InterceptHandler<InterceptName>): void {
    if (!(INTERCEPT_NAMES as readonly string[]).includes(event)) {
      throw invalid(`cannot intercept ${JSON.stringify(event)}: one of ${INTERCEPT_NAMES.join(', ')}`);
    }
    assertHandler(`interceptor "${event}"`, handler);
    if (this.interceptors.has(event)) throw invalid(`an interceptor for "${event}" is already registered`);
    this.interceptors.set(event, handler);
  }

  addPanelHandler<H>(map: Map<string, H>, what: string, panelId: string, handler: H): void {
    if (panelId.length === 0) throw invalid(`${what}: the panel id must not be empty`);
    assertHandler(`${what} "${panelId}"`, handler);
    if (map.has(panelId)) throw invalid(`${what} for panel "${panelId}" is already registered`);
    map.set(panelId, handler);
  }

  findCommand(name: string): CommandDef | undefined {
    return this.commands.get(name.toLowerCase());
  }

  /** Capabilities announced in `hello` when the author gave none. */
  capabilities(): string[] {
    const caps: string[] = [];
    if (this.commands.size > 0) caps.push('commands');
    if (this.tools.size > 0) caps.push('tools');
    if (this.events.size > 0) caps.push('events');
    if (this.interceptors.size > 0) caps.push('intercept');
    if (this.panelKeys.size > 0 || this.panelCloses.size > 0) caps.push('panels');
    return caps;
  }

  /** The subscribe frame for everything observed/intercepted, or undefined when there is none. */
  subscribeFrame(): SubscribeFrame | undefined {
    if (this.events.size === 0 && this.interceptors.size === 0) return undefined;
    return { type: 'subscribe', events: [...this.events.keys()], intercept: [...this.interceptors.keys()] };
  }
}

export function commandFrame(def: CommandDef): RegisterCommandFrame {
  return {
    type: 'register_command',
    name: def.name,
    ...(def.description === undefined ? {} : { description: def.description }),
  };
}

export function toolFrame(def: ToolDef): RegisterToolFrame {
  return {
    type: 'register_tool',
    name: def.name,
    ...(def.description === undefined ? {} : { description: def.description }),
    schema: def.jsonSchema,
    ...(def.deferred ? { deferred: true } : {}),
    ...(def.interactive ? { interactive: true } : {}),
    ...def.meta,
  };
}
