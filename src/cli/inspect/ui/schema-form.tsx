// Forms generated from a tool's JSON Schema: strings, numbers, integers, booleans, enums, arrays,
// nested objects and required fields. A schema part the form cannot show (oneOf, $ref, no type)
// gets a JSON editor of its own; the whole arguments object can always be edited as raw JSON.
import { useState } from 'preact/hooks';
import { asSchema, initialValue, typeOf, type Schema } from './schema.js';

interface FieldProps {
  schema: Schema;
  value: unknown;
  onChange: (value: unknown) => void;
  /** Dotted path, also the input's name (tests and labels use it). */
  path: string;
  label: string;
  required: boolean;
}

/** The fields of an object schema (the tool's arguments). */
export function SchemaForm(props: { schema: Schema; value: Record<string, unknown>; onChange: (value: Record<string, unknown>) => void; prefix: string }) {
  return <ObjectFields schema={props.schema} value={props.value} onChange={(v) => props.onChange(v as Record<string, unknown>)} path={props.prefix} />;
}

function ObjectFields(props: { schema: Schema; value: unknown; onChange: (value: unknown) => void; path: string }) {
  const obj = typeof props.value === 'object' && props.value !== null && !Array.isArray(props.value) ? (props.value as Record<string, unknown>) : {};
  const required = new Set(Array.isArray(props.schema.required) ? (props.schema.required as string[]) : []);
  const entries = Object.entries(asSchema(props.schema.properties));
  if (entries.length === 0) return <p class="muted">no arguments</p>;
  return (
    <div class="fields">
      {entries.map(([name, sub]) => (
        <Field
          key={name}
          schema={asSchema(sub)}
          value={obj[name]}
          path={`${props.path}.${name}`}
          label={name}
          required={required.has(name)}
          onChange={(v) => {
            const next = { ...obj };
            // An optional object left empty is left out (its required fields only count once it is used).
            const empty = typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
            if (v === undefined || (empty && !required.has(name))) delete next[name];
            else next[name] = v;
            props.onChange(next);
          }}
        />
      ))}
    </div>
  );
}

function Label(props: { label: string; required: boolean; schema: Schema; htmlFor?: string }) {
  const type = typeOf(props.schema);
  return (
    <label class="field-label" for={props.htmlFor}>
      <span class="field-name">{props.label}</span>
      {props.required ? <span class="required" title="required">*</span> : null}
      {type !== undefined ? <span class="field-type">{Array.isArray(props.schema.enum) ? 'enum' : type}</span> : null}
      {typeof props.schema.description === 'string' ? <span class="field-desc">{props.schema.description}</span> : null}
    </label>
  );
}

function Field(props: FieldProps) {
  const { schema, value, onChange, path, required } = props;
  const type = typeOf(schema);
  const id = `f-${path}`;
  if (Array.isArray(schema.enum)) {
    const options = schema.enum;
    const index = options.findIndex((o) => JSON.stringify(o) === JSON.stringify(value));
    return (
      <div class="field">
        <Label {...props} htmlFor={id} />
        <select id={id} name={path} value={String(index)} onChange={(e) => {
          const i = Number((e.target as HTMLSelectElement).value);
          onChange(i < 0 ? undefined : options[i]);
        }}>
          {required ? null : <option value="-1">(not set)</option>}
          {options.map((o, i) => (
            <option key={i} value={String(i)}>{typeof o === 'string' ? o : JSON.stringify(o)}</option>
          ))}
        </select>
      </div>
    );
  }
  switch (type) {
    case 'string': {
      const long = schema.format === 'textarea' || (typeof schema.maxLength === 'number' && schema.maxLength > 200);
      const attrs = { id, name: path, value: typeof value === 'string' ? value : '', placeholder: typeof schema.examples === 'object' && Array.isArray(schema.examples) ? String(schema.examples[0] ?? '') : '', onInput: (e: Event) => {
        const v = (e.target as HTMLInputElement).value;
        onChange(v === '' && !required ? undefined : v);
      } };
      return (
        <div class="field">
          <Label {...props} htmlFor={id} />
          {long ? <textarea rows={3} {...attrs} /> : <input type="text" {...attrs} />}
        </div>
      );
    }
    case 'number':
    case 'integer':
      return (
        <div class="field">
          <Label {...props} htmlFor={id} />
          <input
            id={id}
            name={path}
            type="number"
            step={type === 'integer' ? 1 : 'any'}
            min={typeof schema.minimum === 'number' ? schema.minimum : undefined}
            max={typeof schema.maximum === 'number' ? schema.maximum : undefined}
            value={typeof value === 'number' ? String(value) : ''}
            onInput={(e) => {
              const raw = (e.target as HTMLInputElement).value;
              onChange(raw === '' ? undefined : Number(raw));
            }}
          />
        </div>
      );
    case 'boolean':
      return (
        <div class="field field-inline">
          <input id={id} name={path} type="checkbox" checked={value === true} onChange={(e) => onChange((e.target as HTMLInputElement).checked)} />
          <Label {...props} htmlFor={id} />
        </div>
      );
    case 'object':
      return (
        <fieldset class="field nested">
          <legend>
            <Label {...props} />
          </legend>
          <ObjectFields schema={schema} value={value ?? {}} onChange={onChange} path={path} />
        </fieldset>
      );
    case 'array': {
      const items = Array.isArray(value) ? value : [];
      const itemSchema = asSchema(schema.items);
      return (
        <fieldset class="field nested">
          <legend>
            <Label {...props} />
          </legend>
          {items.map((item, i) => (
            <div class="array-item" key={i}>
              <Field schema={itemSchema} value={item} path={`${path}.${i}`} label={`${i}`} required onChange={(v) => onChange(items.map((x, j) => (j === i ? v : x)))} />
              <button type="button" class="small" title="remove this item" onClick={() => onChange(items.filter((_, j) => j !== i))}>
                ✕
              </button>
            </div>
          ))}
          <button type="button" class="small" name={`${path}.add`} onClick={() => onChange([...items, initialValue(itemSchema)])}>
            + add {props.label} item
          </button>
        </fieldset>
      );
    }
    default:
      return <RawField {...props} id={id} />;
  }
}

/** A part of the schema the form cannot show: its value as JSON. */
function RawField(props: FieldProps & { id: string }) {
  const [text, setText] = useState(props.value === undefined ? '' : JSON.stringify(props.value));
  const [bad, setBad] = useState(false);
  return (
    <div class="field">
      <Label {...props} htmlFor={props.id} />
      <textarea
        id={props.id}
        name={props.path}
        rows={2}
        class={bad ? 'invalid' : ''}
        placeholder="JSON"
        value={text}
        onInput={(e) => {
          const t = (e.target as HTMLTextAreaElement).value;
          setText(t);
          if (t.trim() === '') {
            setBad(false);
            return props.onChange(undefined);
          }
          try {
            props.onChange(JSON.parse(t));
            setBad(false);
          } catch {
            setBad(true);
          }
        }}
      />
    </div>
  );
}
