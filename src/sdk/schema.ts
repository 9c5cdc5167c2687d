/** Tool argument schemas: a zod schema (converted and enforced) or a plain JSON Schema (sent as is). */
import { z } from 'zod';
import type { JsonObject } from '../protocol/frames.js';
import { ExtensionSdkError, SdkErrorCode } from './errors.js';

/** Any zod 4 schema (classic or mini). */
export type ZodSchema = z.core.$ZodType;

/** True for zod 4 schemas; a JSON Schema object never carries the `_zod` internals. */
export function isZodSchema(value: unknown): value is ZodSchema {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

const EMPTY_OBJECT_SCHEMA: JsonObject = { type: 'object', properties: {} };

/**
 * The JSON Schema sent in `register_tool`. A zod schema is converted with zod's own converter
 * (draft 2020-12, the dialect Anthropic and OpenAI document; input side, so fields with defaults are
 * optional) and `$schema` is dropped. Tool args are a JSON object, so the result must be one.
 */
export function toolJsonSchema(toolName: string, schema: ZodSchema | JsonObject | undefined): JsonObject {
  if (schema === undefined) return { ...EMPTY_OBJECT_SCHEMA };
  if (!isZodSchema(schema)) return schema;
  let converted: JsonObject;
  try {
    converted = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as JsonObject;
  } catch (err) {
    throw new ExtensionSdkError(
      SdkErrorCode.INVALID_DEFINITION,
      `tool "${toolName}": its zod schema cannot be expressed as JSON Schema (${(err as Error).message})`,
      { cause: err },
    );
  }
  const { $schema: _dropped, ...jsonSchema } = converted;
  if (jsonSchema.type !== 'object') {
    throw new ExtensionSdkError(
      SdkErrorCode.INVALID_DEFINITION,
      `tool "${toolName}": the schema must describe an object (tool args are a JSON object), got ${JSON.stringify(jsonSchema.type ?? null)}`,
    );
  }
  return jsonSchema;
}

export type ArgsCheck<T> = { ok: true; args: T } | { ok: false; message: string };

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(arguments)' : out;
}

/** Validates tool args; the failure message names every bad field (up to 10). */
export async function checkArgs<S extends ZodSchema>(
  toolName: string,
  schema: S,
  args: unknown,
): Promise<ArgsCheck<z.output<S>>> {
  const result = await z.safeParseAsync(schema, args);
  if (result.success) return { ok: true, args: result.data };
  const issues = result.error.issues;
  const listed = issues.slice(0, 10).map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  if (issues.length > listed.length) listed.push(`and ${issues.length - listed.length} more`);
  return { ok: false, message: `invalid arguments for tool "${toolName}": ${listed.join('; ')}` };
}
