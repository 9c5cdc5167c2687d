/**
 * Tool argument schemas: a Standard Schema validator (zod 3.24+/4, valibot, arktype...: enforced,
 * with its JSON Schema from zod 4, the validator's Standard JSON Schema converter or the
 * `jsonSchema` option) or a plain JSON Schema (sent as is, nothing enforced).
 */
import { z } from 'zod';
import type { JsonObject } from '../protocol/frames.js';
import { ExtensionSdkError, SdkErrorCode } from './errors.js';
import { isStandardSchema, standardJsonSchemaInput, type StandardSchemaV1 } from './standard-schema.js';

/** Any zod 4 schema (classic or mini). */
export type ZodSchema = z.core.$ZodType;

/** True for zod 4 schemas; a JSON Schema object never carries the `_zod` internals. */
export function isZodSchema(value: unknown): value is ZodSchema {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

const EMPTY_OBJECT_SCHEMA: JsonObject = { type: 'object', properties: {} };
// The dialect Anthropic and OpenAI document.
const TARGET = 'draft-2020-12';

function invalid(toolName: string, message: string, cause?: unknown): ExtensionSdkError {
  return new ExtensionSdkError(
    SdkErrorCode.INVALID_DEFINITION,
    `tool "${toolName}": ${message}`,
    cause === undefined ? undefined : { cause },
  );
}

function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** A zod 3 schema carries `_def` and no `_zod`; before 3.24 it has no `~standard` either. */
function looksLikeZod3(value: unknown): boolean {
  return typeof value === 'object' && value !== null && '_def' in value && !('_zod' in value);
}

/** Converted JSON Schema: `$schema` dropped; tool args are a JSON object, so it must describe one. */
function objectSchema(toolName: string, converted: unknown): JsonObject {
  if (!isPlainObject(converted)) throw invalid(toolName, 'the JSON Schema converter did not return an object');
  const { $schema: _dropped, ...jsonSchema } = converted;
  if (jsonSchema.type !== 'object') {
    throw invalid(
      toolName,
      `the schema must describe an object (tool args are a JSON object), got ${JSON.stringify(jsonSchema.type ?? null)}`,
    );
  }
  return jsonSchema;
}

function convert(toolName: string, what: string, run: () => unknown): JsonObject {
  let converted: unknown;
  try {
    converted = run();
  } catch (err) {
    throw invalid(
      toolName,
      `its ${what} cannot be expressed as JSON Schema (${(err as Error).message}); pass one as the \`jsonSchema\` option`,
      err,
    );
  }
  return objectSchema(toolName, converted);
}

/** What `register_tool` sends and what, if anything, checks the args before the handler runs. */
export interface ToolSchema {
  jsonSchema: JsonObject;
  validator: StandardSchemaV1 | undefined;
}

/**
 * Resolves a tool's `schema` (and `jsonSchema`) option. The JSON Schema comes from, in order: the
 * explicit `jsonSchema`; zod 4's own converter (input side, so fields with defaults are optional);
 * the validator's Standard JSON Schema converter; a plain JSON Schema `schema` as is.
 */
export function toolSchema(toolName: string, schema: unknown, jsonSchema?: unknown): ToolSchema {
  const validator = isStandardSchema(schema) ? schema : undefined;
  if (jsonSchema !== undefined) {
    if (!validator) {
      throw invalid(toolName, '`jsonSchema` goes with a validator `schema` (zod, valibot, ...); pass a plain JSON Schema as `schema`');
    }
    if (!isPlainObject(jsonSchema)) throw invalid(toolName, '`jsonSchema` must be a JSON Schema object');
    return { jsonSchema: objectSchema(toolName, jsonSchema), validator };
  }
  if (schema === undefined) return { jsonSchema: { ...EMPTY_OBJECT_SCHEMA }, validator: undefined };
  if (validator && isZodSchema(schema)) {
    const jsonSchema = convert(toolName, 'zod schema', () => z.toJSONSchema(schema, { target: TARGET, io: 'input' }));
    return { jsonSchema, validator };
  }
  if (validator) {
    const input = standardJsonSchemaInput(validator);
    const vendor = validator['~standard'].vendor;
    if (input) return { jsonSchema: convert(toolName, `${vendor} schema`, () => input({ target: TARGET })), validator };
    const which = vendor === 'zod' && looksLikeZod3(schema) ? 'a zod 3 schema' : `a ${vendor} schema`;
    throw invalid(
      toolName,
      `${which} cannot produce JSON Schema by itself: pass its JSON Schema as the \`jsonSchema\` option next to \`schema\``,
    );
  }
  if (looksLikeZod3(schema)) {
    throw invalid(toolName, 'zod before 3.24 is not a Standard Schema validator: use zod 3.24+ or 4 (with `jsonSchema` for zod 3)');
  }
  if (!isPlainObject(schema)) {
    throw invalid(toolName, '`schema` must be a Standard Schema validator (zod, valibot, arktype...) or a plain JSON Schema object');
  }
  return { jsonSchema: schema, validator: undefined };
}

export type ArgsCheck<T> = { ok: true; args: T } | { ok: false; message: string };

function formatPath(path: StandardSchemaV1.Issue['path']): string {
  let out = '';
  for (const segment of path ?? []) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(arguments)' : out;
}

/** Validates tool args (sync or async validators); the failure message names every bad field (up to 10). */
export async function checkArgs(toolName: string, validator: StandardSchemaV1, args: unknown): Promise<ArgsCheck<unknown>> {
  const result = await validator['~standard'].validate(args);
  if (result.issues === undefined) return { ok: true, args: result.value };
  const issues = result.issues;
  const listed = issues.slice(0, 10).map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  if (issues.length > listed.length) listed.push(`and ${issues.length - listed.length} more`);
  return { ok: false, message: `invalid arguments for tool "${toolName}": ${listed.join('; ')}` };
}
