// zot-ext prints no terminal control sequence an extension supplied (fixtures/faults/escapes).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Output } from '../../src/cli/output.js';
import { panelLines } from '../../src/cli/run/screen.js';
import { fixture } from '../helpers/fixtures.js';
import { runCli, useCliSandbox } from './cli.js';

const sandbox = useCliSandbox('zot-cli-escapes-');
const escapes = fixture('faults/escapes');
// ESC, BEL, CR, the 8-bit CSI/OSC/ST, DEL: none may reach the terminal.
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

describe('zot-ext strips terminal control sequences from what extensions send', { timeout: 30_000 }, () => {
  it('run: notes, panels, tool results, command and tool lists', async () => {
    const r = await runCli(['run', escapes, '--home', sandbox.home, '--cwd', sandbox.project], { input: '/esc\n!esc_tool\n:commands\n:tools\n' });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stderr).not.toMatch(CONTROL);
    // A note is one line: its carriage return shows escaped.
    expect(r.stdout).toContain('[escapes] info: note \\rend');
    expect(r.stdout).toContain('│ line green');
    expect(r.stdout).toContain('[escapes] esc_tool: result end');
    expect(r.stdout).toContain('/esc  [escapes] desc ');
  });

  it('run: a note is one line (newlines and CR escaped), continuation lines of a text are indented, bidi controls escaped', async () => {
    const r = await runCli(['run', escapes, '--home', sandbox.home, '--cwd', sandbox.project], { input: '/forge\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('[escapes] info: fine\\n[guard] error: forged\\r[x] \\u{202e}exe.txt\n[escapes] display: one\n  [guard] error: forged display\n');
    // No line the extension wrote starts like one of the host's.
    expect(r.stdout.split('\n').filter((l) => l.startsWith('[guard]'))).toEqual([]);
  });

  it('logs and doctor', async () => {
    await runCli(['run', escapes, '--home', sandbox.home, '--cwd', sandbox.project], { input: ':quit\n' });
    const logs = await runCli(['logs', 'escapes', '--home', sandbox.home]);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain('stderr line\n');
    expect(logs.stdout.replaceAll('\n', '').replaceAll('\t', '')).not.toMatch(CONTROL);
    const doctor = await runCli(['doctor', escapes, '--home', sandbox.home, '--cwd', sandbox.project]);
    expect(doctor.stdout).toContain('escapes 1.0.0');
    expect(doctor.stdout.replaceAll('\n', '')).not.toMatch(CONTROL);
  });

  it('panel lines keep their colours (SGR) with colour on, and nothing else', () => {
    const out = new Output(new PassThrough(), true);
    const lines = panelLines({ extension: 'e\x1b[2J', panelId: 'p', title: 't\x1b]0;x\x07', lines: ['a\x1b[32mgreen\x1b[0m\x1b[2J\r\x1b]0;x\x07'], footer: 'f\x1b[1A' } as never, out);
    expect(lines[1]).toBe('│ a\x1b[32mgreen\x1b[0m');
    expect(lines.join('').replace(/\x1b\[[0-9;]*m/g, '')).not.toMatch(CONTROL);
    const plain = panelLines({ extension: 'e', panelId: 'p', lines: ['a\x1b[32mgreen'] } as never, new Output(new PassThrough(), false));
    expect(plain[1]).toBe('│ agreen');
  });
});
