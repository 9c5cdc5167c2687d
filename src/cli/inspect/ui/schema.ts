// What the tool forms know of JSON Schema, without the DOM: the starting value of a form and the
// problems of a value (required fields, types, enums). schema-form.tsx renders the fields.

export type Schema = Record<string, unknown>;

export function asSchema(value: unknown): Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Schema) : {};
}

export function typeOf(schema: Schema): string | undefined {
  const t = schema.type;
  if (typeof t === 'string') return t;
  // ["string", "null"]: the non-null one.
  if (Array.isArray(t)) {
    const types = t.filter((x): x is string => typeof x === 'string' && x !== 'null');
    return types.length === 1 ? types[0] : undefined;
  }
  if (schema.properties !== undefined) return 'object';
  return undefined;
}

/** A starting value for a schema: its default, else empty (undefined for optional scalars). */
export function initialValue(schema: Schema, required = true): unknown {
  if (schema.default !== undefined) return schema.default;
  const type = typeOf(schema);
  if (Array.isArray(schema.enum)) return required ? schema.enum[0] : undefined;
  if (type === 'object') {
    if (!required) return undefined;
    const out: Record<string, unknown> = {};
    const req = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    for (const [name, sub] of Object.entries(asSchema(schema.properties))) {
      const v = initialValue(asSchema(sub), req.has(name));
      if (v !== undefined) out[name] = v;
    }
    return out;
  }
  if (type === 'array') return required ? [] : undefined;
  if (type === 'boolean') return required ? false : undefined;
  return undefined;
}

/** Problems of `value` against the parts of `schema` the form knows: missing required fields, wrong types. */
export function problems(schema: Schema, value: unknown, at = ''): string[] {
  const type = typeOf(schema);
  const where = at === '' ? 'arguments' : at;
  if (value === undefined) return [];
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) return [`${where}: not one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`];
  switch (type) {
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${where}: must be an object`];
      const obj = value as Record<string, unknown>;
      const out: string[] = [];
      for (const name of Array.isArray(schema.required) ? (schema.required as string[]) : []) {
        if (obj[name] === undefined || obj[name] === '') out.push(`${at === '' ? name : `${at}.${name}`}: required`);
      }
      for (const [name, sub] of Object.entries(asSchema(schema.properties))) out.push(...problems(asSchema(sub), obj[name], at === '' ? name : `${at}.${name}`));
      return out;
    }
    case 'array':
      if (!Array.isArray(value)) return [`${where}: must be an array`];
      return value.flatMap((item, i) => problems(asSchema(schema.items), item, `${where}[${i}]`));
    case 'integer':
      return Number.isInteger(value) ? [] : [`${where}: must be a whole number`];
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? [] : [`${where}: must be a number`];
    case 'string':
      return typeof value === 'string' ? [] : [`${where}: must be a string`];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${where}: must be true or false`];
    default:
      return [];
  }
}
