// The lifecycle state machine as a table: every (from, to) pair is either legal (moves and reports
// once) or illegal (throws IllegalTransitionError and changes nothing).
import { describe, expect, it } from 'vitest';
import { IllegalTransitionError, Lifecycle, STATES, TRANSITIONS, canMove, type StateChange } from '../../src/host/lifecycle.js';
import type { ExtensionState } from '../../src/host/types.js';

const LEGAL: readonly (readonly [ExtensionState, ExtensionState])[] = [
  ['starting', 'ready'],
  ['starting', 'failed'],
  ['starting', 'restarting'],
  ['starting', 'stopped'],
  ['ready', 'exited'],
  ['ready', 'failed'],
  ['ready', 'restarting'],
  ['ready', 'stopped'],
  ['restarting', 'starting'],
  ['restarting', 'stopped'],
  ['failed', 'restarting'],
  ['exited', 'restarting'],
];
const isLegal = (from: ExtensionState, to: ExtensionState) => LEGAL.some(([f, t]) => f === from && t === to);
const ALL_PAIRS = STATES.flatMap((from) => STATES.map((to) => [from, to] as const));

/** A lifecycle brought to `state` along legal moves. */
function at(state: ExtensionState, changes: StateChange[] = []): Lifecycle {
  const lifecycle = new Lifecycle('ext', (c) => changes.push(c));
  const path: Record<ExtensionState, ExtensionState[]> = {
    starting: [],
    ready: ['ready'],
    restarting: ['restarting'],
    failed: ['failed'],
    exited: ['ready', 'exited'],
    stopped: ['stopped'],
  };
  for (const step of path[state]) lifecycle.moveTo(step);
  changes.length = 0;
  return lifecycle;
}

describe('Lifecycle transition table', () => {
  it('has the six states and starts in starting', () => {
    expect(STATES).toEqual(['starting', 'ready', 'restarting', 'failed', 'exited', 'stopped']);
    expect(new Lifecycle('ext', () => {}).state).toBe('starting');
  });

  it('is exactly the documented table', () => {
    const key = ([from, to]: readonly [string, string]) => `${from}->${to}`;
    expect(ALL_PAIRS.filter(([from, to]) => canMove(from, to)).map(key)).toEqual(ALL_PAIRS.filter(([from, to]) => isLegal(from, to)).map(key));
    expect(Object.entries(TRANSITIONS).flatMap(([from, tos]) => tos.map((to) => key([from, to]))).sort()).toEqual(LEGAL.map(key).sort());
  });

  it.each(ALL_PAIRS.filter(([from, to]) => isLegal(from, to)))('%s -> %s moves and reports once', (from, to) => {
    const changes: StateChange[] = [];
    const lifecycle = at(from, changes);
    expect(lifecycle.can(to)).toBe(true);
    lifecycle.moveTo(to, 'because');
    expect(lifecycle.state).toBe(to);
    expect(changes).toEqual([{ from, to, reason: 'because' }]);
  });

  it.each(ALL_PAIRS.filter(([from, to]) => !isLegal(from, to)))('%s -> %s is refused and changes nothing', (from, to) => {
    const changes: StateChange[] = [];
    const lifecycle = at(from, changes);
    expect(lifecycle.can(to)).toBe(false);
    let thrown: unknown;
    try {
      lifecycle.moveTo(to);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(IllegalTransitionError);
    expect(thrown).toMatchObject({ extension: 'ext', from, to, message: `ext: illegal lifecycle transition ${from} -> ${to}` });
    expect(lifecycle.state).toBe(from);
    expect(changes).toEqual([]);
  });

  it('never moves to the state it is in; stopped is final; only what runs or waits to run can be stopped', () => {
    for (const state of STATES) expect(canMove(state, state)).toBe(false);
    expect(STATES.filter((to) => canMove('stopped', to))).toEqual([]);
    expect(STATES.filter((from) => canMove(from, 'stopped'))).toEqual(['starting', 'ready', 'restarting']);
    // A down extension leaves only by a manual restart.
    expect(STATES.filter((to) => canMove('failed', to))).toEqual(['restarting']);
    expect(STATES.filter((to) => canMove('exited', to))).toEqual(['restarting']);
  });

  it('reports the reason as undefined when none is given', () => {
    const changes: StateChange[] = [];
    new Lifecycle('ext', (c) => changes.push(c)).moveTo('ready');
    expect(changes).toEqual([{ from: 'starting', to: 'ready', reason: undefined }]);
  });

  it('runs a crash-restart cycle', () => {
    const changes: StateChange[] = [];
    const lifecycle = new Lifecycle('ext', (c) => changes.push(c));
    for (const to of ['ready', 'restarting', 'starting', 'ready', 'restarting', 'starting', 'failed', 'restarting', 'starting', 'ready', 'stopped'] as const) lifecycle.moveTo(to);
    expect(changes.map((c) => `${c.from}->${c.to}`).join(' ')).toBe(
      'starting->ready ready->restarting restarting->starting starting->ready ready->restarting restarting->starting starting->failed failed->restarting restarting->starting starting->ready ready->stopped',
    );
  });
});
