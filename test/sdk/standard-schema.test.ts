// Tool schemas from validators other than zod 4: any Standard Schema validator validates, the JSON
// Schema comes from zod 4, the validator's Standard JSON Schema converter or the `jsonSchema` option.
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z as z3 } from 'zod3';
import { defineExtension, text, type StandardSchemaV1 } from '../../src/sdk/index.js';
import { startWithTools, useFakeHosts } from './harness.js';

const start = useFakeHosts();

const withTools = (define: Parameters<typeof startWithTools>[1]) => startWithTools(start, define);

const FORECAST_JSON = {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } },
  required: ['city'],
};

function errorText(result: Record<string, unknown>): string {
  expect(result.is_error).toBe(true);
  return (result.content as { text: string }[])[0]?.text ?? '';
}

const invalidDefinition = expect.objectContaining({ code: 'INVALID_DEFINITION' });

describe('zod 3 schemas', () => {
  const forecast = z3.object({ city: z3.string(), days: z3.number().int().min(1).max(7).default(3) });

  it('validate the args and send the jsonSchema option as the JSON Schema', async () => {
    const calls: unknown[] = [];
    const { host, registrations } = await withTools((ext) => {
      ext.tool('forecast', { description: 'Forecast', schema: forecast, jsonSchema: FORECAST_JSON }, (args) => {
        calls.push(args);
        return text(`${args.city}: ${args.days} days`);
      });
    });
    expect(registrations).toEqual([
      { type: 'register_tool', name: 'forecast', description: 'Forecast', schema: FORECAST_JSON },
    ]);
    expect(await host.callTool('forecast', { city: 'Oslo' })).toMatchObject({ content: [text('Oslo: 3 days')] });
    expect(calls).toEqual([{ city: 'Oslo', days: 3 }]);

    const message = errorText(await host.callTool('forecast', { city: 42, days: 9 }));
    expect(message).toMatch(/^invalid arguments for tool "forecast": /);
    expect(message).toContain('city: Expected string, received number');
    expect(message).toContain('days: Number must be less than or equal to 7');
    expect(calls).toHaveLength(1);
  });

  it('without jsonSchema fail at definition time with INVALID_DEFINITION, naming the fix', () => {
    const ext = defineExtension({ name: 'tools' });
    expect(() => ext.tool('forecast', { schema: forecast }, () => 'x')).toThrow(invalidDefinition);
    expect(() => ext.tool('forecast', { schema: forecast }, () => 'x')).toThrow(/zod 3 schema.*`jsonSchema`/);
  });

  it('name nested fields in validation errors', async () => {
    const { host } = await withTools((ext) => {
      ext.tool(
        'batch',
        { schema: z3.object({ items: z3.array(z3.object({ name: z3.string() })) }), jsonSchema: { type: 'object' } },
        () => 'ok',
      );
    });
    expect(errorText(await host.callTool('batch', { items: [{ name: 'a' }, { name: 1 }] }))).toContain('items[1].name: ');
  });
});

describe('valibot schemas', () => {
  const forecast = v.object({
    city: v.string(),
    days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(7)), 3),
  });

  it('validate the args and send the jsonSchema option as the JSON Schema', async () => {
    const calls: unknown[] = [];
    const { host, registrations } = await withTools((ext) => {
      ext.tool('forecast', { schema: forecast, jsonSchema: FORECAST_JSON }, (args) => {
        calls.push(args);
        return text(`${args.city}: ${args.days} days`);
      });
    });
    expect(registrations[0]).toMatchObject({ schema: FORECAST_JSON });
    expect(await host.callTool('forecast', { city: 'Oslo' })).toMatchObject({ content: [text('Oslo: 3 days')] });
    expect(calls).toEqual([{ city: 'Oslo', days: 3 }]);

    const message = errorText(await host.callTool('forecast', { city: 42, days: 9 }));
    expect(message).toMatch(/^invalid arguments for tool "forecast": /);
    expect(message).toContain('city: Invalid type: Expected string but received 42');
    expect(message).toContain('days: Invalid value: Expected <=7 but received 9');
  });

  it('without jsonSchema fail at definition time with INVALID_DEFINITION', () => {
    const ext = defineExtension({ name: 'tools' });
    expect(() => ext.tool('forecast', { schema: forecast }, () => 'x')).toThrow(invalidDefinition);
    expect(() => ext.tool('forecast', { schema: forecast }, () => 'x')).toThrow(/valibot schema.*`jsonSchema`/);
  });

  it('await an async validation', async () => {
    const known = v.pipeAsync(
      v.object({ city: v.string() }),
      v.checkAsync(async (input) => input.city !== 'Atlantis', 'unknown city'),
    );
    const { host } = await withTools((ext) => {
      ext.tool('where', { schema: known, jsonSchema: { type: 'object' } }, (args) => args.city);
    });
    expect(await host.callTool('where', { city: 'Oslo' })).toMatchObject({ content: [text('Oslo')] });
    expect(errorText(await host.callTool('where', { city: 'Atlantis' }))).toBe(
      'invalid arguments for tool "where": (arguments): unknown city',
    );
  });
});

describe('other validators', () => {
  // A hand-written Standard Schema with a Standard JSON Schema converter, as arktype has.
  function positive(): StandardSchemaV1<{ n: number }> & {
    '~standard': { jsonSchema: { input: (o: { target: string }) => Record<string, unknown> } };
  } {
    return {
      '~standard': {
        version: 1,
        vendor: 'hand',
        validate: async (value) => {
          const n = (value as { n?: unknown }).n;
          return typeof n === 'number' && n > 0 ? { value: { n } } : { issues: [{ message: 'must be > 0', path: [{ key: 'n' }] }] };
        },
        jsonSchema: {
          input: (o) => ({ $schema: o.target, type: 'object', properties: { n: { type: 'number', exclusiveMinimum: 0 } } }),
        },
      },
    };
  }

  it('take the JSON Schema from ~standard.jsonSchema (draft 2020-12, $schema dropped)', async () => {
    const { host, registrations } = await withTools((ext) => {
      ext.tool('half', { schema: positive() }, (args) => String(args.n / 2));
    });
    expect(registrations[0]?.schema).toEqual({ type: 'object', properties: { n: { type: 'number', exclusiveMinimum: 0 } } });
    expect(await host.callTool('half', { n: 4 })).toMatchObject({ content: [text('2')] });
    expect(errorText(await host.callTool('half', { n: -1 }))).toBe('invalid arguments for tool "half": n: must be > 0');
  });

  it('reject a jsonSchema that does not describe an object, or one next to a plain JSON Schema', () => {
    const ext = defineExtension({ name: 'tools' });
    expect(() => ext.tool('a', { schema: positive(), jsonSchema: { type: 'string' } }, () => 'x')).toThrow(invalidDefinition);
    const plain = { type: 'object' } as Record<string, unknown>;
    const untyped = ext as unknown as { tool: (name: string, o: object, h: () => string) => void };
    expect(() => untyped.tool('b', { schema: plain, jsonSchema: plain }, () => 'x')).toThrow(invalidDefinition);
  });

  it('reject a schema that is neither a validator nor a plain JSON Schema object', () => {
    const ext = defineExtension({ name: 'tools' });
    class NotASchema {
      type = 'object';
    }
    const untyped = ext as unknown as { tool: (name: string, o: object, h: () => string) => void };
    expect(() => untyped.tool('a', { schema: new NotASchema() }, () => 'x')).toThrow(invalidDefinition);
    // zod before 3.24: `_def`, no `~standard`
    expect(() => untyped.tool('b', { schema: { _def: { typeName: 'ZodObject' } } }, () => 'x')).toThrow(/zod before 3\.24/);
  });
});
