// The "Last stderr" summary of an extension that died: the line that names the error, then the tail.
import { describe, expect, it } from 'vitest';
import { stderrSummary } from '../../src/transport/log.js';
import { fixture } from '../helpers/fixtures.js';
import { hostKit } from '../helpers/host.js';

const kit = hostKit();

describe('stderrSummary', () => {
  it('leads with the Error line of a Node stack trace, not the source line Node prints above it', () => {
    const node = [
      'file:///ext/main.mjs:5',
      "  throw new Error('settings not found');",
      '        ^',
      '',
      'Error: settings not found',
      '    at readSettings (file:///ext/main.mjs:5:9)',
      '    at loadConfig (file:///ext/main.mjs:8:10)',
      '    at init (file:///ext/main.mjs:11:10)',
      '    at ModuleJob.run (node:internal/modules/esm/module_job:325:25)',
      '    at async ModuleLoader.import (node:internal/modules/esm/loader:606:24)',
      '',
      'Node.js v20.20.2',
    ];
    expect(stderrSummary(node, 3)).toEqual([
      'Error: settings not found',
      '    at ModuleJob.run (node:internal/modules/esm/module_job:325:25)',
      '    at async ModuleLoader.import (node:internal/modules/esm/loader:606:24)',
    ]);
  });

  it('recognises typed and coded Node errors, Go panics and Rust errors', () => {
    const frames = ['    at a', '    at b', '    at c'];
    expect(stderrSummary(['x', 'TypeError: x is not a function', ...frames], 2)[0]).toBe('TypeError: x is not a function');
    expect(stderrSummary(["Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'tsx'", ...frames], 2)[0]).toMatch(/^Error \[ERR_MODULE/);
    expect(stderrSummary(['panic: runtime error: index out of range', 'goroutine 1 [running]:', ...frames], 2)[0]).toMatch(/^panic:/);
    expect(stderrSummary(['error[E0425]: cannot find value', ...frames], 2)[0]).toMatch(/^error\[E0425\]/);
  });

  it('keeps the plain tail when the error line is in it already (Python) or there is none', () => {
    const python = ['Traceback (most recent call last):', '  File "x.py", line 3, in <module>', '    main()', 'ValueError: bad config'];
    expect(stderrSummary(python, 2)).toEqual(['    main()', 'ValueError: bad config']);
    expect(stderrSummary(['one', 'two', 'three'], 2)).toEqual(['two', 'three']);
  });

  it('cuts long lines', () => {
    expect(stderrSummary(['x'.repeat(1000)], 1)[0]).toHaveLength(301);
  });
});

describe('a Node extension that throws before hello', () => {
  it('fails with the Error line in its message, not only the end of the stack trace', async () => {
    const { host } = kit.create({ explicit: [fixture('faults/throw-before-hello')] });
    const report = await host.start();
    const failure = report.failed[0]?.error;
    expect(failure?.code).toBe('EXITED_BEFORE_HELLO');
    expect(failure?.message).toMatch(/\nLast stderr:\n  Error: settings not found: \.\/settings\.json\n {6}at /);
    expect(failure?.message).not.toContain('throw new Error');
    expect(failure?.message).not.toContain('Node.js v');
  });
});
