// In-process tests: the manifest edit, key mapping, argument parsing, colours, and `run` on a TTY.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findCommand, parse, GLOBAL_OPTIONS } from '../../src/cli/args.js';
import { CliError } from '../../src/cli/errors.js';
import { main } from '../../src/cli/main.js';
import { setEnabled } from '../../src/cli/manifest-edit.js';
import { useColour } from '../../src/cli/output.js';
import { toPanelInput } from '../../src/cli/run/keys.js';
import { fixture, tempDir } from '../helpers/fixtures.js';
import { WAIT_MS, withDeadline } from '../helpers/wait.js';

describe('setEnabled', () => {
  const edit = (text: string, enabled: boolean) => {
    const r = setEnabled(text, enabled);
    if (!r.ok) throw new Error(r.message);
    return r;
  };

  it('replaces an existing value in place and nothing else', () => {
    const text = '{\n  "name": "x",\n  "enabled": true,\n  "nested": { "enabled": true }\n}\n';
    expect(edit(text, false).text).toBe('{\n  "name": "x",\n  "enabled": false,\n  "nested": { "enabled": true }\n}\n');
    expect(edit(text, true)).toEqual({ ok: true, text, changed: false });
    expect(edit('{"enabled":null,"name":"x"}', false).text).toBe('{"enabled":false,"name":"x"}');
  });

  it('appends "enabled": false after the last member in the file\'s style; enabling an absent field changes nothing', () => {
    expect(edit('{\n    "name": "x",\n    "args": ["a", "b"]\n}', false).text).toBe('{\n    "name": "x",\n    "args": ["a", "b"],\n    "enabled": false\n}');
    expect(edit('{"name" : "x"}', false).text).toBe('{"name" : "x","enabled" : false}');
    expect(edit('{"name":"x"}', true).changed).toBe(false);
    expect(edit('{}', false).text).toBe('{"enabled": false}');
  });

  it('handles escaped quotes in keys and values, and a BOM', () => {
    const text = '\ufeff{"na\\"me": "a\\"}b", "enabled": true}';
    expect(edit(text, false).text).toBe('\ufeff{"na\\"me": "a\\"}b", "enabled": false}');
  });

  it('refuses text that is not a JSON object', () => {
    expect(setEnabled('{"name": }', false)).toMatchObject({ ok: false, message: expect.stringContaining('line 1, column 10') });
    expect(setEnabled('[1]', false)).toEqual({ ok: false, message: 'the manifest is not a JSON object' });
  });
});

describe('toPanelInput', () => {
  it('maps terminal keys to the spec names', () => {
    expect(toPanelInput(undefined, { name: 'up' })).toEqual({ key: 'up' });
    expect(toPanelInput('\r', { name: 'return' })).toEqual({ key: 'enter' });
    // Esc closes the panel, as in zot (never a panel_key)
    expect(toPanelInput(undefined, { name: 'escape', meta: true, sequence: '\x1b' })).toEqual({ close: true });
    expect(toPanelInput('x', { name: 'x' })).toEqual({ key: 'rune', text: 'x' });
    expect(toPanelInput('é', undefined)).toEqual({ key: 'rune', text: 'é' });
    expect(toPanelInput('\x03', { name: 'c', ctrl: true })).toEqual({ close: true });
    expect(toPanelInput('\x01', { name: 'a', ctrl: true })).toBeUndefined();
    expect(toPanelInput(undefined, { name: 'f1' })).toBeUndefined();
  });
});

describe('arguments', () => {
  it('finds the command after global options with values', () => {
    expect(findCommand(['--home', '/h', 'list', '--json'])).toBe('list');
    expect(findCommand(['--home=/h', '--debug', 'doctor'])).toBe('doctor');
    expect(findCommand(['--help'])).toBeUndefined();
  });

  it('turns parse errors into usage errors naming the help', () => {
    const error = (() => {
      try {
        parse(['--home'], GLOBAL_OPTIONS, 'list');
      } catch (err) {
        return err;
      }
    })();
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(2);
    expect((error as CliError).message).toBe('option --home needs a value; see zot-ext list --help');
  });

  it('uses colours only on a TTY without NO_COLOR', () => {
    expect(useColour({ isTTY: true }, {})).toBe(true);
    expect(useColour({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(useColour({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(useColour({ isTTY: false }, {})).toBe(false);
    expect(useColour({}, {})).toBe(false);
  });
});

describe('run on a TTY', () => {
  let tmp: { dir: string; cleanup: () => void };
  beforeEach(() => {
    tmp = tempDir('zot-cli-tty-');
    mkdirSync(path.join(tmp.dir, 'project'));
  });
  afterEach(() => tmp.cleanup());

  /** A stream that looks like a terminal, and a way to wait for what was written to it. */
  function terminal() {
    const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 100, setRawMode: () => stream });
    let text = '';
    const waiters = new Set<() => void>();
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      for (const w of waiters) w();
    });
    /** Resolves with the offset after `needle` (searched from `from`); rejects with the text so far after 5 s. */
    const waitFor = (needle: string, from = 0) =>
      withDeadline<number>(() => `${JSON.stringify(needle)} after offset ${from} in ${JSON.stringify(text)}`, WAIT_MS, (resolve) => {
        const check = () => {
          const at = text.indexOf(needle, from);
          if (at !== -1) resolve(at + needle.length);
        };
        waiters.add(check);
        check();
        return () => waiters.delete(check);
      });
    return { stream, waitFor, text: () => text };
  }

  it('sends arrow keys and runes to the focused panel and redraws it in place; Esc closes it', async () => {
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
    const stdout = terminal();
    const stderr = terminal();
    const home = path.join(tmp.dir, 'home');
    const stop = new AbortController();
    const exit = main(['run', fixture('extensions/todo'), '--home', home, '--cwd', path.join(tmp.dir, 'project')], {
      stdin,
      stdout: stdout.stream,
      stderr: stderr.stream,
      env: { ...process.env, NO_COLOR: '1' },
      cwd: tmp.dir,
      signal: stop.signal,
    });
    try {
    let at = await stdout.waitFor('zot-ext> ');
    stdin.write('/todo\r');
    at = await stdout.waitFor('│ › □ ship panel api', at);
    stdin.write('\x1b[B');
    at = await stdout.waitFor('\x1b[4A', at); // the old frame is replaced
    at = await stdout.waitFor('│ › □ persist state', at);
    stdin.write('x');
    at = await stdout.waitFor('│ › ✓ persist state', at);
    stdin.write('\x1b');
    at = await stdout.waitFor('[todo] panel todos-main closed (by the user)', at);
    at = await stdout.waitFor('zot-ext> ', at);
    stdin.write(':quit\r');
    expect(await exit).toBe(0);
    } finally {
      // On failure: stop the extension before the file's leak check.
      stop.abort();
      await exit;
    }
    expect(stderr.text()).toContain('loaded todo 1.0.0 (explicit): /todo');
    expect(stdout.text()).not.toMatch(/\x1b\[3\dm/); // NO_COLOR
  });
  /** `zot-ext run <args>` on a fake terminal; stop() ends it (for the file's leak check). */
  function ttyRun(args: string[]) {
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
    const stdout = terminal();
    const stderr = terminal();
    const stop = new AbortController();
    const home = path.join(tmp.dir, 'home');
    const exit = main(['run', ...args, '--home', home, '--cwd', path.join(tmp.dir, 'project')], {
      stdin,
      stdout: stdout.stream,
      stderr: stderr.stream,
      env: { ...process.env, NO_COLOR: '1' },
      cwd: tmp.dir,
      signal: stop.signal,
    });
    const finish = async () => {
      stop.abort();
      return exit;
    };
    return { stdin, stdout, stderr, exit, finish };
  }

  it("shows a running call's progress on one updating line, which the result replaces", async () => {
    const t = ttyRun([fixture('faults/long-tool')]);
    try {
      let at = await t.stdout.waitFor('zot-ext> ');
      t.stdin.write('!long {"steps":2,"ms":10}\r');
      at = await t.stdout.waitFor('[long-tool] long: done 2\n', at);
      const CLEAR = '\r\x1b[2K';
      expect(t.stdout.text()).toContain(`${CLEAR}[long-tool] tool progress: step 1 (1/2)${CLEAR}[long-tool] tool progress: step 2 (2/2)${CLEAR}[long-tool] long: done 2\n`);
      // No progress line ever ends with a newline of its own.
      expect(t.stdout.text()).not.toContain('(1/2)\n');
      await t.stdout.waitFor('zot-ext> ', at);
      t.stdin.write(':quit\r');
      expect(await t.exit).toBe(0);
    } finally {
      await t.finish();
    }
  });

  it('a terminal session that ends normally exits 0 after a typo; the typo still says why', async () => {
    const t = ttyRun([fixture('extensions/hello-sh')]);
    try {
      let at = await t.stdout.waitFor('zot-ext> ');
      t.stdin.write('/helo-sh\r');
      await t.stderr.waitFor('error: unknown command /helo-sh');
      at = await t.stdout.waitFor('zot-ext> ', at);
      t.stdin.write('/hello-sh\r');
      at = await t.stdout.waitFor('[hello-sh] display: hello from sh', at);
      t.stdin.write(':quit\r');
      expect(await t.exit).toBe(0);
    } finally {
      await t.finish();
    }
  });

  it('Ctrl+C aborts a running tool call at once and keeps the REPL; a second Ctrl+C exits', async () => {
    const t = ttyRun([fixture('faults/stuck-tool'), fixture('extensions/weather')]);
    try {
      let at = await t.stdout.waitFor('zot-ext> ');
      t.stdin.write('!stuck\r');
      at = await t.stdout.waitFor('[stuck-tool] info: stuck: stuck started', at);
      const pressed = Date.now();
      t.stdin.write('\x03');
      at = await t.stdout.waitFor('[stuck-tool] stuck error: ', at);
      expect(Date.now() - pressed).toBeLessThan(2000); // not the 60 s tool deadline
      expect(t.stdout.text().slice(at)).toMatch(/^[^\n]*abort/i);
      await t.stderr.waitFor('aborting the running call; Ctrl+C again exits');
      // Still usable: the next line runs.
      at = await t.stdout.waitFor('zot-ext> ', at);
      t.stdin.write('!weather {"city":"Oslo"}\r');
      at = await t.stdout.waitFor('[weather] weather: Oslo: 16°C, fog', at);
      // A second Ctrl+C with a call running exits without waiting for it.
      t.stdin.write('!stuck\r');
      at = await t.stdout.waitFor('[stuck-tool] info: stuck: stuck started', at);
      t.stdin.write('\x03');
      await t.stderr.waitFor('aborting the running call');
      t.stdin.write('\x03');
      // At a terminal failed lines were answered already: the session exits 0 (piped, they fail it).
      expect(await t.exit).toBe(0);
    } finally {
      await t.finish();
    }
  });

  it('--timeout bounds calls made from the REPL', async () => {
    const t = ttyRun([fixture('faults/stuck-tool'), '--timeout', '200']);
    try {
      let at = await t.stdout.waitFor('zot-ext> ');
      t.stdin.write('!stuck\r');
      at = await t.stdout.waitFor('[stuck-tool] stuck error: ', at);
      expect(t.stdout.text().slice(at)).toMatch(/^[^\n]*200 ms/);
      at = await t.stdout.waitFor('zot-ext> ', at);
      t.stdin.write(':quit\r');
      expect(await t.exit).toBe(0); // a terminal session that ends with :quit
    } finally {
      await t.finish();
    }
  });
});
