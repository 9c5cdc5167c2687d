import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ExtensionHostError } from '../../src/errors.js';
import { ExtensionProcess, type ExtensionProcessOptions, type ProcessDiagnostic } from '../../src/process/extension-process.js';
import { fixture, tempDir } from '../helpers/fixtures.js';
import { isAlive } from '../helpers/processes.js';

const logs = tempDir();
afterAll(() => logs.cleanup());

const started: ExtensionProcess[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => p.stop()));
});

const HOST = { hostVersion: '9.9.9', provider: 'anthropic', model: 'claude-test', cwd: '/work/project' };

function proc(dir: string, exec: string, overrides: Partial<ExtensionProcessOptions> = {}): ExtensionProcess {
  const p = new ExtensionProcess({
    name: path.basename(dir),
    dir,
    launch: { kind: 'spawn', exec },
    logDir: logs.dir,
    host: HOST,
    timeouts: { hello: 5000, shutdown: 500, kill: 200 },
    ...overrides,
  });
  started.push(p);
  return p;
}

async function failure(promise: Promise<unknown>): Promise<ExtensionHostError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ExtensionHostError);
    return err as ExtensionHostError;
  }
  throw new Error('expected a rejection');
}

const kitchenDir = fixture('extensions/kitchen');

describe('handshake', () => {
  it('answers hello with hello_ack immediately, carrying host info and the extension dir', async () => {
    const p = proc(kitchenDir, './kitchen.mjs');
    const hello = await p.start();
    expect(hello).toMatchObject({ type: 'hello', name: 'kitchen', version: '0.1.0' });
    const r = await p.request({ type: 'command_invoked', name: 'ack', args: '' }, { timeoutMs: 5000 });
    expect(r.type).toBe('command_response');
    expect(JSON.parse(r.display!)).toEqual({
      type: 'hello_ack',
      protocol_version: 1,
      zot_version: '9.9.9',
      provider: 'anthropic',
      model: 'claude-test',
      cwd: '/work/project',
      extension_dir: kitchenDir,
      data_dir: kitchenDir,
    });
  });

  it('keeps unknown hello fields and emits later frames in order', async () => {
    const p = proc(fixture('faults/grandchild'), './run.sh');
    const frames: string[] = [];
    p.on('frame', (f) => frames.push(f.type));
    const hello = await p.start();
    expect(typeof hello.grandchild_pid).toBe('number');
  });

  it('reports a missing executable with its path, before spawning', async () => {
    const p = proc(kitchenDir, './no-such-binary');
    const err = await failure(p.start());
    expect(err.code).toBe('SPAWN_FAILED');
    expect(err.message).toContain(path.join(kitchenDir, 'no-such-binary'));
  });

  it('reports arguments that spawn() refuses as SPAWN_FAILED, never a bare error', async () => {
    const p = new ExtensionProcess({ name: 'nul', dir: kitchenDir, launch: { kind: 'spawn', exec: './kitchen.mjs', args: ['a\u0000b'] }, logDir: logs.dir, host: HOST });
    started.push(p);
    const err = await failure(p.start());
    expect(err.code).toBe('SPAWN_FAILED');
    expect(await p.exited).toMatchObject({ reason: 'exited' });
  });

  it('reports a bare command missing from PATH', async () => {
    const p = proc(kitchenDir, 'zot-no-such-command-on-path');
    const err = await failure(p.start());
    expect(err.code).toBe('SPAWN_FAILED');
    expect(err.message).toContain('zot-no-such-command-on-path');
  });

  it('reports an exit before hello with the exit code, the last stderr lines and the log path', async () => {
    const dir = fixture('faults/crash-before-hello');
    const p = proc(dir, './run.sh');
    const err = await failure(p.start());
    expect(err.code).toBe('EXITED_BEFORE_HELLO');
    expect(err.exitCode).toBe(3);
    expect(err.message).toContain('code 3');
    expect(err.message).toContain('boom: missing config');
    expect(err.message).toContain(p.logPath);
    expect(err.logPath).toBe(p.logPath);
  });

  it('times out an extension that never says hello, and kills it', async () => {
    const p = proc(fixture('faults/silent'), './run.sh', { timeouts: { hello: 150, kill: 200 } });
    const err = await failure(p.start());
    expect(err.code).toBe('HELLO_TIMEOUT');
    expect(err.message).toContain(p.logPath);
    expect(await isAlive(p.pid!)).toBe(false);
  });

  it('refuses a first frame that is not hello, saying what came instead', async () => {
    const p = proc(fixture('faults/not-hello'), './run.sh');
    const err = await failure(p.start());
    expect(err.code).toBe('BAD_HELLO');
    expect(err.message).toContain('"notify"');
    expect(await isAlive(p.pid!)).toBe(false);
  });

  it('writes a header per start and the child stderr into ext-<name>.log', async () => {
    const p = proc(fixture('faults/crash-before-hello'), './run.sh');
    await failure(p.start());
    const text = await readFile(p.logPath, 'utf8');
    expect(path.basename(p.logPath)).toBe('ext-crash-before-hello.log');
    expect(text).toMatch(/--- .* start crash-before-hello: .*run\.sh ---/);
    expect(text).toContain('boom: missing config');
  });
});

describe('requests', () => {
  it('answers 1,000 concurrent requests, each to its own caller (node)', async () => {
    const p = proc(kitchenDir, './kitchen.mjs');
    await p.start();
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => p.request({ type: 'tool_call', name: 'echo', args: { i } }, { timeoutMs: 10_000 })),
    );
    results.forEach((r, i) => expect(r.content).toEqual([{ type: 'text', text: JSON.stringify({ i }) }]));
  });

  it('answers 1,000 concurrent requests, each to its own caller (python3)', async () => {
    const p = proc(fixture('faults/echo-py'), './echo.py');
    await p.start();
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => p.request({ type: 'tool_call', name: 'echo', args: { i, s: 'é🎉' } }, { timeoutMs: 10_000 })),
    );
    results.forEach((r, i) => expect(JSON.parse((r.content![0] as { text: string }).text)).toEqual({ i, s: 'é🎉' }));
  });

  it('settles every pending request at once with PROCESS_EXITED when the process crashes', async () => {
    const p = proc(kitchenDir, './kitchen.mjs');
    await p.start();
    const hanging = p.request({ type: 'tool_call', name: 'hang', args: {} }, { timeoutMs: 60_000 });
    const t0 = performance.now();
    const crash = p.request({ type: 'tool_call', name: 'crash', args: {} }, { timeoutMs: 60_000 });
    const [a, b] = await Promise.all([failure(hanging), failure(crash)]);
    expect(performance.now() - t0).toBeLessThan(1000);
    for (const err of [a, b]) {
      expect(err.code).toBe('PROCESS_EXITED');
      expect(err.exitCode).toBe(7);
      expect(err.message).toContain('code 7');
    }
    expect(await p.exited).toMatchObject({ code: 7, reason: 'exited' });
    await expect(p.request({ type: 'tool_call', name: 'echo', args: {} })).rejects.toMatchObject({ code: 'PROCESS_EXITED' });
  });

  it('times out a request that gets no answer, and keeps the extension usable', async () => {
    const p = proc(kitchenDir, './kitchen.mjs');
    await p.start();
    const err = await failure(p.request({ type: 'tool_call', name: 'hang', args: {} }, { timeoutMs: 50 }));
    expect(err.code).toBe('TIMEOUT');
    expect(err.message).toContain('50 ms');
    const ok = await p.request({ type: 'tool_call', name: 'echo', args: { after: true } }, { timeoutMs: 5000 });
    expect(ok.content).toEqual([{ type: 'text', text: '{"after":true}' }]);
  });

  it('aborts a request through its signal', async () => {
    const p = proc(kitchenDir, './kitchen.mjs');
    await p.start();
    const controller = new AbortController();
    const pending = p.request({ type: 'tool_call', name: 'hang', args: {} }, { signal: controller.signal });
    controller.abort();
    expect((await failure(pending)).code).toBe('ABORTED');
    expect((await failure(p.request({ type: 'tool_call', name: 'echo', args: {} }, { signal: controller.signal }))).code).toBe('ABORTED');
  });

  it('settles a request with BAD_RESPONSE when its answer does not match the protocol', async () => {
    const p = proc(kitchenDir, './kitchen.mjs');
    await p.start();
    const err = await failure(p.request({ type: 'tool_call', name: 'bad_result', args: {} }, { timeoutMs: 5000 }));
    expect(err.code).toBe('BAD_RESPONSE');
    expect(err.message).toContain('content');
  });

  it('times a request that cannot be written out without stopping the extension; stops it once its stdin is stuck', async () => {
    const p = proc(fixture('faults/deaf'), './deaf.sh', { timeouts: { hello: 5000, shutdown: 500, kill: 200, stuck: 600 } });
    await p.start();
    const big = 'x'.repeat(256 * 1024);
    const began = Date.now();
    // Begun (a pipe holds 64 KiB) and completed later for the framing: a plain TIMEOUT, still running.
    expect((await failure(p.request({ type: 'tool_call', name: 'echo', args: { big } }, { timeoutMs: 100 }))).code).toBe('TIMEOUT');
    expect(p.running).toBe(true);
    const pending = failure(p.request({ type: 'tool_call', name: 'echo', args: {} }, { timeoutMs: 60_000 }));
    // Its stdin takes nothing more for the stuck deadline: stopped, the pending call fails at once.
    const err = await pending;
    expect(err.code).toBe('WRITE_TIMEOUT');
    expect(err.message).toContain('stuck');
    expect(Date.now() - began).toBeLessThan(5000);
    expect(await p.exited).toMatchObject({ reason: 'stdin_blocked' });
    expect((await failure(p.request({ type: 'tool_call', name: 'echo', args: {} }, { timeoutMs: 60_000 }))).code).toBe('WRITE_TIMEOUT');
  });

  it('with closeStdinOnWriteTimeout (the before_agent_start rule), closes the stdin once a write misses its deadline', async () => {
    const p = proc(fixture('faults/deaf'), './deaf.sh');
    await p.start();
    const big = 'x'.repeat(256 * 1024);
    const err = await failure(p.request({ type: 'tool_call', name: 'echo', args: { big } }, { timeoutMs: 100, closeStdinOnWriteTimeout: true }));
    expect(err.code).toBe('WRITE_TIMEOUT');
    expect(err.message).toContain('stdin was closed');
    // It can receive nothing any more: it is stopped, and later requests fail at once.
    expect(await p.exited).toMatchObject({ reason: 'stdin_blocked' });
    expect((await failure(p.request({ type: 'tool_call', name: 'echo', args: {} }, { timeoutMs: 60_000 }))).code).toBe('WRITE_TIMEOUT');
  });
});

describe('bad output', () => {
  it('counts and reports garbage lines and unknown ids without failing', async () => {
    const p = proc(fixture('faults/garbage'), './garbage.mjs');
    const diagnostics: ProcessDiagnostic[] = [];
    const frames: string[] = [];
    p.on('diagnostic', (d) => diagnostics.push(d));
    p.on('frame', (f) => frames.push(f.type === 'register_command' ? `register_command:${f.name}` : f.type));
    const ready = new Promise<void>((resolve) => p.on('frame', (f) => f.type === 'ready' && resolve()));
    await p.start();
    await ready;
    expect(frames).toEqual(['register_command:still-works', 'ready']);
    expect(diagnostics.map((d) => d.code)).toEqual(['NOT_JSON', 'NOT_OBJECT', 'NOT_OBJECT', 'UNKNOWN_TYPE', 'INVALID_FRAME', 'UNKNOWN_ID']);
    for (const d of diagnostics) {
      expect(d.extension).toBe('garbage');
      expect(d.logPath).toBe(p.logPath);
    }
    expect(p.stats.badLines).toBe(5);
    await p.logFlushed();
    const log = await readFile(p.logPath, 'utf8');
    expect(log).toContain('[host]');
    expect(log).toContain('this is not json');
  });

  it('closes the read loop of an extension that sends an oversized frame and settles its requests', async () => {
    const p = proc(kitchenDir, './kitchen.mjs', { maxFrameBytes: 1024 * 1024 });
    await p.start();
    const diagnostics: ProcessDiagnostic[] = [];
    p.on('diagnostic', (d) => diagnostics.push(d));
    const hang = p.request({ type: 'tool_call', name: 'hang', args: {} });
    const big = p.request({ type: 'command_invoked', name: 'big', args: '' });
    expect((await failure(hang)).code).toBe('FRAME_TOO_LARGE');
    expect((await failure(big)).code).toBe('FRAME_TOO_LARGE');
    expect(diagnostics.map((d) => d.code)).toContain('FRAME_TOO_LARGE');
    expect(await p.exited).toMatchObject({ reason: 'frame_too_large' });
  });

  it('treats an extension that closes its stdout as gone', async () => {
    const p = proc(kitchenDir, './kitchen.mjs');
    await p.start();
    const err = await failure(p.request({ type: 'tool_call', name: 'closeout', args: {} }));
    expect(err.code).toBe('PROCESS_EXITED');
    expect(err.message).toContain('closed its stdout');
    expect(await p.exited).toMatchObject({ reason: 'stdout_closed' });
  });
});

describe('shutdown', () => {
  it('sends shutdown and lets a well-behaved extension exit by itself', async () => {
    const p = proc(kitchenDir, './kitchen.mjs');
    await p.start();
    const pending = failure(p.request({ type: 'tool_call', name: 'hang', args: {} }));
    await p.stop();
    expect((await pending).code).toBe('PROCESS_EXITED');
    expect(await p.exited).toEqual({ code: 0, signal: null, reason: 'stopped' });
    await p.stop(); // twice is harmless
  });

  it('kills an extension that ignores shutdown and SIGTERM', async () => {
    const p = proc(fixture('faults/ignore-sigterm'), './run.sh', { timeouts: { shutdown: 100, kill: 100 } });
    await p.start();
    await p.stop();
    expect(await p.exited).toMatchObject({ signal: 'SIGKILL' });
    expect(await isAlive(p.pid!)).toBe(false);
  });

  // A host that stops while an extension is still being spawned (start() reported it `starting`
  // after a short hello timeout) must not leave the process it was spawning running.
  it('stop() while the spawn is under way closes what it spawned: start() rejects NOT_STARTED', { timeout: 10_000 }, async () => {
    const p = proc(fixture('faults/silent'), './run.sh', { timeouts: { hello: 60_000, shutdown: 100, kill: 100 } });
    const transport = (p as unknown as { transport: { start(...args: unknown[]): Promise<void> } }).transport;
    const open = transport.start.bind(transport);
    let stopped: Promise<void> | undefined;
    transport.start = (...args: unknown[]) => {
      const opening = open(...args);
      // Once the spawn has begun (a stop comes from another task).
      stopped = Promise.resolve().then(() => p.stop());
      return opening;
    };
    expect((await failure(p.start())).code).toBe('NOT_STARTED');
    await stopped;
    expect(p.pid).toBeDefined();
    expect(await isAlive(p.pid!)).toBe(false);
    expect((await p.exited).reason).toBe('stopped');
  });

  it('stop() before the spawn began spawns nothing', { timeout: 10_000 }, async () => {
    const p = proc(fixture('faults/silent'), './run.sh', { timeouts: { hello: 60_000, shutdown: 100, kill: 100 } });
    const starting = p.start();
    await p.stop();
    expect((await failure(starting)).code).toBe('NOT_STARTED');
    expect(p.pid).toBeUndefined();
  });

  it('takes grandchildren along (process group)', async () => {
    const p = proc(fixture('faults/grandchild'), './run.sh');
    const hello = await p.start();
    const grandchild = hello.grandchild_pid as number;
    expect(await isAlive(grandchild)).toBe(true);
    await p.stop();
    expect(await isAlive(grandchild)).toBe(false);
  });

  it('stopping before start or twice in parallel is harmless', async () => {
    const p = proc(kitchenDir, './kitchen.mjs');
    await p.stop();
    const q = proc(kitchenDir, './kitchen.mjs');
    await q.start();
    await Promise.all([q.stop(), q.stop()]);
    expect((await q.exited).reason).toBe('stopped');
  });
});
