/**
 * The Standard Schema interface (https://standardschema.dev), copied as its spec asks so that no
 * validator library is a dependency: zod 3.24+ and 4, valibot 1, arktype 2 all implement it.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1.Props<Input, Output>;
}

export declare namespace StandardSchemaV1 {
  export interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
  }
  export type Result<Output> = SuccessResult<Output> | FailureResult;
  export interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  export interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  export interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  export interface PathSegment {
    readonly key: PropertyKey;
  }
  export interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
  export type InferInput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['input'];
  export type InferOutput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['output'];
}

/** True for any Standard Schema validator (a plain JSON Schema object has no `~standard`). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return typeof props === 'object' && props !== null && typeof (props as { validate?: unknown }).validate === 'function';
}

/** The Standard JSON Schema converter (zod 4.2+, arktype), when the validator offers one. */
export function standardJsonSchemaInput(schema: StandardSchemaV1): ((options: { target: string }) => unknown) | undefined {
  const converter = (schema['~standard'] as { jsonSchema?: { input?: unknown } }).jsonSchema;
  return typeof converter?.input === 'function' ? (converter.input as (options: { target: string }) => unknown) : undefined;
}
