// The inspector's tool forms: the starting value a JSON Schema gives and the problems that keep a
// call from being made (src/cli/inspect/ui/schema.ts, the page's logic without the DOM).
import { describe, expect, it } from 'vitest';
import { initialValue, problems } from '../../src/cli/inspect/ui/schema.js';

const BOOK = {
  type: 'object',
  properties: {
    destination: { type: 'string' },
    nights: { type: 'integer', minimum: 1 },
    cabin: { type: 'string', enum: ['economy', 'business'] },
    meal: { enum: ['veg', 'fish'] },
    refundable: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    traveller: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'number' } }, required: ['name'] },
    note: { type: ['string', 'null'], default: 'none' },
    anything: { oneOf: [{ type: 'string' }, { type: 'number' }] },
  },
  required: ['destination', 'nights', 'cabin', 'refundable'],
};

describe('inspect forms from JSON Schema', () => {
  it('start from defaults, the first enum value and false for required fields; optional ones stay out', () => {
    expect(initialValue(BOOK)).toEqual({ cabin: 'economy', refundable: false, note: 'none' });
    expect(initialValue({ type: 'object' })).toEqual({});
    expect(initialValue({})).toBeUndefined();
  });

  it('name every missing required field, nested ones once their object is used', () => {
    expect(problems(BOOK, initialValue(BOOK))).toEqual(['destination: required', 'nights: required']);
    expect(problems(BOOK, { destination: 'Lisbon', nights: 3, cabin: 'economy', refundable: true })).toEqual([]);
    expect(problems(BOOK, { destination: 'Lisbon', nights: 3, cabin: 'economy', refundable: true, traveller: { age: 3 } })).toEqual(['traveller.name: required']);
    // An empty string does not fill a required field.
    expect(problems(BOOK, { destination: '', nights: 3, cabin: 'economy', refundable: false })).toEqual(['destination: required']);
  });

  it('check types, enums and array items; leave what the form cannot show to the extension', () => {
    const ok = { destination: 'x', nights: 1, cabin: 'business', refundable: false };
    expect(problems(BOOK, { ...ok, nights: 1.5 })).toEqual(['nights: must be a whole number']);
    expect(problems(BOOK, { ...ok, cabin: 'first' })).toEqual(['cabin: not one of "economy", "business"']);
    expect(problems(BOOK, { ...ok, meal: 'meat' })).toEqual(['meal: not one of "veg", "fish"']);
    expect(problems(BOOK, { ...ok, tags: ['a', 2] })).toEqual(['tags[1]: must be a string']);
    expect(problems(BOOK, { ...ok, traveller: { name: 'Ada', age: 'old' } })).toEqual(['traveller.age: must be a number']);
    expect(problems(BOOK, { ...ok, note: 'x', anything: { free: true } })).toEqual([]);
    expect(problems(BOOK, [])).toEqual(['arguments: must be an object']);
  });
});
