// The Python SDK's name lists (python/zot_ext/_wire.py) are those of src/protocol/names.ts, in order.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_NAMES, INTERCEPT_NAMES, NOTIFY_LEVELS, PANEL_KEYS } from '../../src/protocol/names.js';
import { ROOT } from '../helpers/fixtures.js';

const wire = readFileSync(path.join(ROOT, 'python/zot_ext/_wire.py'), 'utf8');

/** The string literals of the tuple assigned to `name` in _wire.py. */
function tuple(name: string): string[] {
  const match = new RegExp(`^${name} = \\(([^)]*)\\)`, 'm').exec(wire);
  if (match === null) throw new Error(`${name} not found in _wire.py`);
  return [...match[1]!.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
}

describe('the Python SDK name lists', () => {
  it('are the protocol lists, member for member', () => {
    expect(tuple('EVENT_NAMES')).toEqual([...EVENT_NAMES]);
    expect(tuple('PANEL_KEYS')).toEqual([...PANEL_KEYS]);
    expect(tuple('NOTIFY_LEVELS')).toEqual([...NOTIFY_LEVELS]);
    expect(Object.keys(JSON.parse(`{${/^INTERCEPT_ARITY = \{([^}]*)\}/m.exec(wire)![1]!}}`) as object)).toEqual([...INTERCEPT_NAMES]);
  });
});
