import { describe, expectTypeOf, it } from 'vitest';
import * as v from 'valibot';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import {
  defineExtension,
  display,
  type CommandResponse,
  type CustomEventPayload,
  type UpstreamEventPayloads,
  type HostInfo,
  type JsonObject,
  type PanelKey,
  type PanelKeyName,
  type RequestContext,
  type ToolContext,
  type CallToolResult,
  type StandardSchemaToolOptions,
  type StandardSchemaV1,
} from '../../src/sdk/index.js';

const ext = defineExtension({ name: 'types' });

describe('SDK types', () => {
  it('types zod tool args from the schema (output side) and JSON Schema tool args as JsonObject', () => {
    ext.tool('zod', { schema: z.object({ city: z.string(), days: z.number().default(3) }) }, (args, ctx) => {
      expectTypeOf(args).toEqualTypeOf<{ city: string; days: number }>();
      expectTypeOf(ctx).toEqualTypeOf<ToolContext>();
      expectTypeOf(ctx).toMatchTypeOf<RequestContext>();
      expectTypeOf(ctx.operationKey).toEqualTypeOf<string | undefined>();
      expectTypeOf(ctx.callTool('other', {})).toEqualTypeOf<Promise<CallToolResult>>();
      return args.city;
    });
    ext.tool('json', { schema: { type: 'object', properties: {} } }, (args) => {
      expectTypeOf(args).toEqualTypeOf<JsonObject>();
    });
  });

  it('types Standard Schema tool args (zod 3, valibot) from the schema, with a jsonSchema option', () => {
    const json = { type: 'object', properties: { city: { type: 'string' } } };
    ext.tool('zod3', { schema: z3.object({ city: z3.string(), days: z3.number().default(3) }), jsonSchema: json }, (args) => {
      expectTypeOf(args).toEqualTypeOf<{ city: string; days: number }>();
    });
    ext.tool('valibot', { schema: v.object({ city: v.string(), n: v.optional(v.number(), 1) }), jsonSchema: json }, (args) => {
      expectTypeOf(args).toEqualTypeOf<{ city: string; n: number }>();
    });
    // zod 4 may still give an explicit JSON Schema
    ext.tool('zod4', { schema: z.object({ city: z.string() }), jsonSchema: json }, (args) => {
      expectTypeOf(args).toEqualTypeOf<{ city: string }>();
    });
    expectTypeOf<StandardSchemaToolOptions<StandardSchemaV1<{ a: 1 }>>['jsonSchema']>().toEqualTypeOf<
      JsonObject | undefined
    >();
    // jsonSchema goes with a validator, not with a plain JSON Schema
    // @ts-expect-error -- no jsonSchema next to a JSON Schema `schema`
    ext.tool('json2', { schema: { type: 'object' }, jsonSchema: json }, () => 'x');
    // @ts-expect-error -- jsonSchema is a JSON object
    ext.tool('bad', { schema: z3.object({}), jsonSchema: 'object' }, () => 'x');
  });

  it('types event payloads per known event and falls back for custom ones', () => {
    ext.on('turn_start', (event) => {
      expectTypeOf(event.step).toEqualTypeOf<number>();
    });
    ext.on('tool_call', (event) => {
      expectTypeOf(event.toolName).toEqualTypeOf<string>();
      expectTypeOf(event.args).toEqualTypeOf<JsonObject>();
    });
    ext.on('my_custom_event', (event) => {
      expectTypeOf(event).toEqualTypeOf<CustomEventPayload>();
    });
    // The events zot added, and its lifecycle fields on every event (absent when not sent).
    ext.on('tool_result', (event) => {
      expectTypeOf(event.result.isError).toEqualTypeOf<boolean>();
      expectTypeOf(event.originExtension).toEqualTypeOf<string | undefined>();
      expectTypeOf(event.sequence).toEqualTypeOf<number | undefined>();
    });
    ext.on('user_prompt_submit', (event) => {
      expectTypeOf(event.imageCount).toEqualTypeOf<number>();
    });
    ext.on('session_end', (event) => {
      expectTypeOf(event).toEqualTypeOf<UpstreamEventPayloads['session_end']>();
    });
  });

  it('types interceptor inputs and decisions per event', () => {
    ext.intercept('before_agent_start', (input) => {
      expectTypeOf(input.systemPrompt).toEqualTypeOf<string>();
      return { systemPrompt: '' };
    });
    ext.intercept('assistant_message', ({ text }) => ({ replaceText: text.toUpperCase() }));
    // @ts-expect-error turn_start cannot rewrite text
    ext.intercept('turn_start', () => ({ replaceText: 'x' }));
    // @ts-expect-error session_start is not interceptable
    ext.intercept('session_start', () => undefined);
  });

  it('types command handlers, panel keys and host info', () => {
    ext.command('c', (args) => {
      expectTypeOf(args).toEqualTypeOf<string>();
      expectTypeOf(display('x')).toEqualTypeOf<CommandResponse>();
      return display(args);
    });
    // @ts-expect-error a bare string is not a command response
    ext.command('bad', () => 'text');
    ext.onPanelKey('p', (key, text) => {
      // A name outside the spec's list comes as it is (the host forwards it); the spec's names still complete.
      expectTypeOf(key).toEqualTypeOf<PanelKey>();
      expectTypeOf(key).toEqualTypeOf<PanelKeyName | (string & {})>();
      expectTypeOf<PanelKeyName>().toExtend<typeof key>();
      expectTypeOf(text).toEqualTypeOf<string | undefined>();
    });
    ext.onHello((host) => {
      expectTypeOf(host).toEqualTypeOf<HostInfo>();
    });
    expectTypeOf(ext.host).toEqualTypeOf<HostInfo | undefined>();
  });
});
