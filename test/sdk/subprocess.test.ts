// The SDK as a real subprocess: the greeter fixture exactly as its manifest launches it, and a
// noisy extension proving that stdout carries frames only.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ChildExtension } from './child.js';
import { HELLO_ACK } from './harness.js';

const GREETER_DIR = fileURLToPath(new URL('../../fixtures/sdk/greeter/', import.meta.url));
const TEST_FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

let running: ChildExtension[] = [];
afterEach(async () => {
  for (const ext of running) ext.kill();
  await Promise.all(running.map((ext) => ext.exited));
  running = [];
});

function launch(command: string, args: readonly string[], cwd: string): ChildExtension {
  const ext = new ChildExtension(command, args, cwd);
  running.push(ext);
  return ext;
}

function launchGreeter(): ChildExtension {
  const manifest = JSON.parse(readFileSync(`${GREETER_DIR}extension.json`, 'utf8')) as { exec: string; args: string[] };
  const exec = manifest.exec === 'node' ? process.execPath : manifest.exec;
  return launch(exec, manifest.args, GREETER_DIR);
}

describe('SDK extension as a subprocess', () => {
  it('greeter: handshake, command, zod tool, interceptor, shutdown', { timeout: 15_000 }, async () => {
    const ext = launchGreeter();
    expect(await ext.next((f) => f.type === 'hello', 'hello')).toEqual({
      type: 'hello',
      name: 'greeter',
      version: '1.0.0',
      capabilities: ['commands', 'tools', 'intercept', 'cancel', 'progress', 'trace'],
    });
    ext.send(HELLO_ACK);
    await ext.next((f) => f.type === 'ready', 'ready');
    expect(ext.frames.map((f) => f.type)).toEqual(['hello', 'register_command', 'register_tool', 'subscribe', 'ready']);
    expect(ext.frames[2]).toMatchObject({
      name: 'add',
      schema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    });

    ext.send({ type: 'command_invoked', id: 'c1', name: 'greet', args: 'world' });
    expect(await ext.answer('c1')).toEqual({ type: 'command_response', id: 'c1', action: 'display', display: 'hello, world' });

    ext.send({ type: 'tool_call', id: 't1', name: 'add', args: { a: 2, b: 40 } });
    expect(await ext.answer('t1')).toEqual({ type: 'tool_result', id: 't1', content: [{ type: 'text', text: '42' }] });

    ext.send({ type: 'tool_call', id: 't2', name: 'add', args: { a: 2 } });
    expect(await ext.answer('t2')).toMatchObject({ is_error: true, content: [{ text: expect.stringContaining('b: ') }] });

    ext.send({ type: 'event_intercept', id: 'i1', event: 'tool_call', tool_id: 'x', tool_name: 'bash', tool_args: { command: 'sudo rm -rf /' } });
    expect(await ext.answer('i1')).toEqual({ type: 'event_intercept_response', id: 'i1', block: true, reason: 'greeter: sudo is not allowed' });
    ext.send({ type: 'event_intercept', id: 'i2', event: 'tool_call', tool_id: 'y', tool_name: 'bash', tool_args: { command: 'ls' } });
    expect(await ext.answer('i2')).toEqual({ type: 'event_intercept_response', id: 'i2' });

    ext.send({ type: 'shutdown' });
    await ext.next((f) => f.type === 'shutdown_ack', 'shutdown_ack');
    expect(await ext.exited).toEqual({ code: 0, signal: null });
  });

  it('exits by itself when its stdin closes', { timeout: 15_000 }, async () => {
    const ext = launchGreeter();
    await ext.next((f) => f.type === 'hello', 'hello');
    ext.child.stdin?.end();
    expect(await ext.exited).toEqual({ code: 0, signal: null });
  });

  it('keeps stdout for frames only: console output and stray writes go to stderr', { timeout: 15_000 }, async () => {
    const ext = launch(process.execPath, ['--import', 'tsx', './noisy.ts'], TEST_FIXTURES);
    await ext.next((f) => f.type === 'hello', 'hello');
    ext.send(HELLO_ACK);
    await ext.next((f) => f.type === 'ready', 'ready');
    ext.send({ type: 'command_invoked', id: 'n1', name: 'noise', args: '' });
    expect(await ext.answer('n1')).toMatchObject({ action: 'display', display: 'quiet answer' });
    ext.send({ type: 'shutdown' });
    await ext.next((f) => f.type === 'shutdown_ack', 'shutdown_ack');
    expect(await ext.exited).toEqual({ code: 0, signal: null });

    expect(ext.lines).toHaveLength(ext.frames.length);
    expect(ext.frames.map((f) => f.type)).toEqual(['hello', 'register_command', 'ready', 'command_response', 'shutdown_ack']);
    for (const needle of ['noise from console.log', 'noise from console.info', 'noise from console.debug', 'noise from process.stdout.write']) {
      expect(ext.stderr).toContain(needle);
    }
  });
});
