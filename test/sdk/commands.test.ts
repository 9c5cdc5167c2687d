import { describe, expect, it } from 'vitest';
import { defineExtension, display, insert, noop, openPanel, prompt } from '../../src/sdk/index.js';
import { useFakeHosts } from './harness.js';

const start = useFakeHosts();

async function withCommands(define: (ext: ReturnType<typeof defineExtension>) => void) {
  const ext = defineExtension({ name: 'cmds' });
  define(ext);
  const host = start(ext);
  await host.handshake();
  return host;
}

describe('commands', () => {
  it('answers every action with the matching command_response', async () => {
    const host = await withCommands((ext) => {
      ext.command('p', (args) => prompt(`weather in ${args}`));
      ext.command('i', () => insert('inserted'));
      ext.command('d', () => display('shown'));
      ext.command('o', () => openPanel({ id: 'todos', title: 'Todos', lines: ['a', 'b'], footer: 'esc close' }));
      ext.command('n', () => noop());
    });
    const strip = ({ id: _id, ...rest }: Record<string, unknown>) => rest;
    expect(strip(await host.command('p', 'berlin'))).toEqual({ type: 'command_response', action: 'prompt', prompt: 'weather in berlin' });
    expect(strip(await host.command('i'))).toEqual({ type: 'command_response', action: 'insert', insert: 'inserted' });
    expect(strip(await host.command('d'))).toEqual({ type: 'command_response', action: 'display', display: 'shown' });
    expect(strip(await host.command('o'))).toEqual({
      type: 'command_response',
      action: 'open_panel',
      open_panel: { id: 'todos', title: 'Todos', lines: ['a', 'b'], footer: 'esc close' },
    });
    expect(strip(await host.command('n'))).toEqual({ type: 'command_response', action: 'noop' });
  });

  it('echoes the request id and passes args and the request id to the handler', async () => {
    let seen: { args: string; requestId: string } | undefined;
    const host = await withCommands((ext) => {
      ext.command('echo', (args, ctx) => {
        seen = { args, requestId: ctx.requestId };
        return display(args);
      });
    });
    host.send({ type: 'command_invoked', id: 'abc-1', name: 'echo', args: 'hello there' });
    expect(await host.answer('abc-1')).toMatchObject({ id: 'abc-1', display: 'hello there' });
    expect(seen).toEqual({ args: 'hello there', requestId: 'abc-1' });
  });

  it('carries an error alongside any action', async () => {
    const host = await withCommands((ext) => {
      ext.command('partial', () => display('partial', { error: 'x' }));
      ext.command('bad', () => noop({ error: 'nothing to do' }));
    });
    expect(await host.command('partial')).toMatchObject({ action: 'display', display: 'partial', error: 'x' });
    expect(await host.command('bad')).toMatchObject({ action: 'noop', error: 'nothing to do' });
  });

  it('answers a throwing handler with its error and keeps running', async () => {
    const host = await withCommands((ext) => {
      ext.command('boom', async () => {
        throw new Error('the API is down');
      });
      ext.command('ok', () => display('fine'));
    });
    expect(await host.command('boom')).toMatchObject({ type: 'command_response', action: 'noop', error: 'the API is down' });
    expect(host.stderr).toContain('command "boom" failed');
    expect(await host.command('ok')).toMatchObject({ action: 'display', display: 'fine' });
  });

  it('treats a handler returning nothing as noop', async () => {
    const host = await withCommands((ext) => {
      ext.command('quiet', (_args, ctx) => {
        ctx.notify('info', 'did it');
      });
    });
    const answer = await host.command('quiet');
    expect(answer).toMatchObject({ action: 'noop' });
    expect(answer).not.toHaveProperty('error');
    expect(host.received.find((f) => f.type === 'notify')).toEqual({ type: 'notify', level: 'info', message: 'did it' });
  });

  it('matches names case-insensitively and answers unknown commands with an error', async () => {
    const host = await withCommands((ext) => {
      ext.command('Weather', () => display('sunny'));
    });
    expect(await host.command('weather')).toMatchObject({ action: 'display', display: 'sunny' });
    expect(await host.command('nope')).toMatchObject({ action: 'noop', error: 'unknown command "nope"' });
  });

  it('turns a malformed response from an untyped handler into an error answer', async () => {
    const host = await withCommands((ext) => {
      ext.command('js', (() => ({ action: 'explode' })) as never);
    });
    expect(await host.command('js')).toMatchObject({ action: 'noop', error: expect.stringContaining('invalid response') });
  });

  it('rejects bad definitions when they are made', () => {
    const ext = defineExtension({ name: 'defs' });
    ext.command('dup', () => undefined);
    expect(() => ext.command('DUP', () => undefined)).toThrow(expect.objectContaining({ code: 'INVALID_DEFINITION' }));
    expect(() => ext.command('/slash', () => undefined)).toThrow(/leading "\/"/);
    expect(() => ext.command('two words', () => undefined)).toThrow(/without spaces/);
    expect(() => ext.command('nohandler', {}, undefined as never)).toThrow(/must be a function/);
    expect(() => defineExtension({ name: '' })).toThrow(/non-empty/);
  });
});
