// Faults of a running extension, one real fixture each: the host survives, every pending call of
// that extension settles by its deadline with the right code, the witness keeps answering, the
// diagnostic names the extension and its log, and nothing of it remains after stop().
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/index.js';
import { expectGoneAfterStop, expectWarningNaming, expectWitnessAnswers, faultKit, processGroup, settlesBy } from '../helpers/faults.js';
import { textOf } from '../helpers/host.js';
import { waitUntil } from '../helpers/wait.js';

const faults = faultKit();
const SHORT = { tool: 300, command: 300, intercept: 300 };

describe('crash mid-request (saboteur)', () => {
  it('mid tool call: this call and another pending one settle with PROCESS_EXITED', async () => {
    const run = await faults.start('saboteur');
    const pending = run.host.callTool('sab_hang', {});
    const crashed = await settlesBy(run.host.callTool('sab_crash', {}), 0);
    for (const result of [crashed, await settlesBy(pending, 0)]) {
      expect(result).toMatchObject({ isError: true, extension: 'saboteur', failure: { code: ErrorCode.PROCESS_EXITED, logPath: run.info().logPath } });
    }
    await expectWarningNaming(run, ErrorCode.PROCESS_EXITED);
    expect(run.info().state).toBe('exited');
    await expectWitnessAnswers(run.host);
    await expectGoneAfterStop(run.host, [run.pid]);
  });

  it('mid command', async () => {
    const run = await faults.start('saboteur');
    const outcome = await settlesBy(run.host.runCommand('/sab-crash'), 0);
    expect(outcome).toMatchObject({ handled: true, failure: { code: ErrorCode.PROCESS_EXITED } });
    await expectWarningNaming(run, ErrorCode.PROCESS_EXITED);
    await expectWitnessAnswers(run.host);
    await expectGoneAfterStop(run.host, [run.pid]);
  });

  it('mid intercept: a crash step, allowed by default', async () => {
    const run = await faults.start('saboteur');
    const d = await settlesBy(run.host.intercepts.toolCall({ toolId: 't', toolName: 'crash_me', args: {} }), 0);
    expect(d).toMatchObject({ block: false, trace: [{ interceptor: 'saboteur', decision: 'failure', failure: 'crash' }] });
    await expectWarningNaming(run, ErrorCode.PROCESS_EXITED);
    await expectWitnessAnswers(run.host);
    await expectGoneAfterStop(run.host, [run.pid]);
  });

  it('mid before_agent_start: the prompt is kept', async () => {
    const run = await faults.start('saboteur');
    const r = await settlesBy(run.host.prepareSystemPrompt({ systemPrompt: 'CRASH' }), 0);
    expect(r).toMatchObject({ systemPrompt: 'CRASH', trace: [{ interceptor: 'saboteur', failure: 'crash' }] });
    await expectWarningNaming(run, ErrorCode.PROCESS_EXITED);
    await expectWitnessAnswers(run.host);
    await expectGoneAfterStop(run.host, [run.pid]);
  });
});

describe('hangs (saboteur): each request settles at its deadline, the extension stays', () => {
  it('in a tool call, a command, an intercept and before_agent_start', async () => {
    const run = await faults.start('saboteur', { timeouts: SHORT });
    const logPath = run.info().logPath;
    const [tool, command, intercept, prompt] = await settlesBy(
      Promise.all([
        run.host.callTool('sab_hang', {}),
        run.host.runCommand('/sab-hang'),
        run.host.intercepts.toolCall({ toolId: 't', toolName: 'hang_me', args: {} }),
        run.host.prepareSystemPrompt({ systemPrompt: 'HANG' }),
      ]),
      300,
    );
    expect(tool).toMatchObject({ isError: true, failure: { code: ErrorCode.TIMEOUT, extension: 'saboteur', logPath } });
    expect(command).toMatchObject({ handled: true, failure: { code: ErrorCode.TIMEOUT, extension: 'saboteur' } });
    expect(intercept.trace).toMatchObject([{ interceptor: 'saboteur', failure: 'timeout' }]);
    expect(prompt).toMatchObject({ systemPrompt: 'HANG', trace: [{ interceptor: 'saboteur', failure: 'timeout' }] });
    await run.rec.waitFor('warning', (w) => w.code === 'INTERCEPT_TIMEOUT' && w.extension === 'saboteur' && w.logPath === logPath);
    await run.rec.waitFor('warning', (w) => w.code === 'SYSTEM_PROMPT' && w.extension === 'saboteur' && w.logPath === logPath);
    expect(run.info().state).toBe('ready');
    expect(textOf(await run.host.callTool('sab_ok', {}))).toBe('ok');
    await expectWitnessAnswers(run.host);
    await expectGoneAfterStop(run.host, [run.pid]);
  });
});

describe('bad bytes on stdout (saboteur)', () => {
  it('invalid UTF-8 in a frame is decoded with replacement characters; nothing breaks', async () => {
    const run = await faults.start('saboteur');
    expect(textOf(await run.host.callTool('sab_badutf8', {}))).toBe('bad \uFFFD\uFFFD\uFFFD');
    await expectWitnessAnswers(run.host);
    await expectGoneAfterStop(run.host, [run.pid]);
  });

  it('hostile JSON (__proto__, 100,000-deep field, 1e400) neither pollutes prototypes nor breaks the call', async () => {
    const run = await faults.start('saboteur');
    const result = await run.host.callTool('sab_hostile', {});
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'hostile' }] });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).is_error).toBeUndefined();
    expect(textOf(await run.host.callTool('sab_ok', {}))).toBe('ok');
    await expectWitnessAnswers(run.host);
    await expectGoneAfterStop(run.host, [run.pid]);
  });
});

describe('stdout faults (kitchen; witness echo-py)', () => {
  it('closes stdout but lives: the call settles with PROCESS_EXITED and the process is stopped', async () => {
    const run = await faults.start('extensions/kitchen', { witness: 'faults/echo-py' });
    const result = await settlesBy(run.host.callTool('closeout', {}), 0);
    expect(result.failure?.code).toBe(ErrorCode.PROCESS_EXITED);
    const warning = await expectWarningNaming(run, ErrorCode.PROCESS_EXITED);
    expect(warning.message).toContain('closed its stdout');
    expect(run.host.diagnostics()).toContainEqual(expect.objectContaining({ code: 'STDOUT_CLOSED', extension: 'kitchen' }));
    expect(run.host.tools().map((t) => t.extension)).toEqual(['echo-py']);
    await expectWitnessAnswers(run.host);
    await expectGoneAfterStop(run.host, [run.pid]);
  });

  it('an oversized frame disconnects it with FRAME_TOO_LARGE', async () => {
    const run = await faults.start('extensions/kitchen', { witness: 'faults/echo-py' });
    const outcome = await settlesBy(run.host.runCommand('/big'), 0);
    expect(outcome).toMatchObject({ handled: true, failure: { code: ErrorCode.FRAME_TOO_LARGE } });
    expect(run.host.diagnostics()).toContainEqual(expect.objectContaining({ code: 'FRAME_TOO_LARGE', extension: 'kitchen', logPath: run.info().logPath, severity: 'error' }));
    expect(run.rec.of('notify').some((n) => n.extension === 'kitchen')).toBe(false);
    expect((await expectWarningNaming(run, ErrorCode.PROCESS_EXITED)).message).toContain('sent an oversized frame');
    await expectWitnessAnswers(run.host);
    await expectGoneAfterStop(run.host, [run.pid]);
  });
});

describe('floods stderr (flood-stderr)', () => {
  it('keeps the log under its cap (rotated to .1) while both extensions keep answering', async () => {
    const cap = 128 * 1024;
    const run = await faults.start('flood-stderr', { logMaxBytes: cap });
    const logPath = run.info().logPath;
    const flood = run.host.callTool('flood', { kib: 2048 });
    await expectWitnessAnswers(run.host);
    expect(textOf(await flood)).toBe('flooded 2048 KiB');
    await waitUntil('the flooded log is rotated and back under its cap', () => statSync(logPath).size < cap && statSync(`${logPath}.1`, { throwIfNoEntry: false }) !== undefined, 4000);
    await expectGoneAfterStop(run.host, [run.pid]);
  });
});

describe('shutdown faults', () => {
  it('ignores SIGTERM: stop() still ends it (SIGKILL) within shutdown + kill grace', async () => {
    const run = await faults.start('ignore-sigterm', { timeouts: { shutdown: 200 } });
    const began = performance.now();
    await expectGoneAfterStop(run.host, [run.pid]);
    expect(performance.now() - began).toBeLessThan(200 + 1000 + 2000);
  });

  it('plain grandchildren (same process group) are ended with it', async () => {
    const run = await faults.start('grandchild');
    const members = await processGroup(run.pid!);
    expect(members.length).toBeGreaterThanOrEqual(2); // the extension and its `sleep`
    await expectGoneAfterStop(run.host, members);
  });

  it('exits during shutdown (no ack): stop() resolves without waiting for the grace', async () => {
    const run = await faults.start('saboteur', { timeouts: { shutdown: 5000 } });
    const began = performance.now();
    await expectGoneAfterStop(run.host, [run.pid]);
    expect(performance.now() - began).toBeLessThan(5000);
  });
});
