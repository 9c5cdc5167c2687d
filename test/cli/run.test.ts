// `zot-ext run` driven through piped stdin, against real fixture extensions.
import { describe, expect, it } from 'vitest';
import { fixture } from '../helpers/fixtures.js';
import { CliProcess, runCli, useCliSandbox } from './cli.js';

const sandbox = useCliSandbox('zot-cli-run-');

const ext = (name: string) => fixture(`extensions/${name}`);
const script = (...lines: string[]) => `${lines.join('\n')}\n`;
const run = (paths: string[], input: string) => runCli(['run', ...paths, '--home', sandbox.home, '--cwd', sandbox.project], { input });

describe('run (piped)', { timeout: 30_000 }, () => {
  it('runs commands and tools and shows what the agent would do', async () => {
    const r = await run([ext('weather')], script('/weather Berlin', '!weather {"city":"Oslo"}', '!weather', '!enable_forecast', '!forecast {"city":"Rome"}'));
    expect(r.stderr).toContain('loaded weather 1.0.0 (explicit): /Weather; tools: weather, forecast (deferred), enable_forecast\n');
    expect(r.stdout).toBe(
      script(
        "[weather] prompt: Show today's weather for Berlin in one line.",
        '[weather] weather: Oslo: 16°C, fog',
        '[weather] weather error: weather: missing city',
        '[weather] enable_forecast: Enabled forecast',
        '[weather] activated tools: forecast',
        '[weather] forecast: Rome: tomorrow 18°C, sun',
      ),
    );
    expect(r.code).toBe(0);
  });

  it(':tools lists the active tools; :tools -v adds each JSON schema, indented below its tool', async () => {
    const r = await run([ext('weather')], script(':tools', ':tools -v', ':tools -x'));
    const tool = (name: string, description: string) => `${name}  [weather] ${description}`;
    const schema = (value: object) => JSON.stringify(value, null, 2).replace(/^/gm, '    ');
    expect(r.stdout).toBe(
      script(
        tool('weather', 'Get the current weather for a city.'),
        tool('enable_forecast', 'Make the forecast tool available.'),
        tool('weather', 'Get the current weather for a city.'),
        schema({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
        tool('enable_forecast', 'Make the forecast tool available.'),
        schema({ type: 'object', properties: {} }),
      ),
    );
    expect(r.stderr).toContain('error: usage: :tools [-v]\n');
  });

  it('prints every action kind and notes with their level and extension name', async () => {
    const r = await run([ext('kitchen')], script('/put some text', '/show shown', '/bg job', '/oops', '/clear', '!image'));
    expect(r.stdout).toBe(
      script(
        '[kitchen] insert: some text',
        '[kitchen] display: shown',
        '[kitchen] info: working: job',
        '[kitchen] submit: job',
        '[kitchen] noop',
        '[kitchen] error: something failed',
        '[kitchen] display: partial',
        '[kitchen] notes cleared',
        '[kitchen] noop',
        '[kitchen] image: [image image/png, 8 bytes]',
      ),
    );
    expect(r.code).toBe(0);
  });

  it('drives interactive tools (approve_action, secret) through the panels they open, with :key and :close', async () => {
    for (const dir of [fixture('sdk/gate'), fixture('sdk/gate-py')]) {
      const name = dir.endsWith('-py') ? 'gate-py' : 'gate';
      const r = await run(
        [dir],
        script('!approve_action {"action":"ship it"}', ':key rune y', '!approve_action {"action":"nope"}', ':close', '!secret', ':key rune o', ':key rune k', ':key backspace', ':key enter'),
      );
      const box = (id: string, title: string, footer: string, ...lines: string[]) => [`┌─ ${title} [${name}] ${id}`, ...lines.map((line) => `│ ${line}`), `└─ ${footer}`];
      const approve = (id: string, action: string) => box(id, 'Approval required', 'y approve · n deny · esc cancel', `  Action:  ${action}`);
      const secret = (dots: number) => box('secret-3', 'Passphrase', 'enter submit · esc cancel', `  ${'•'.repeat(dots)}`);
      expect(r.stdout).toBe(
        script(
          ...approve('approve-1', 'ship it'),
          `[${name}] panel approve-1 closed (by the extension)`,
          `[${name}] approve_action: approved`,
          ...approve('approve-2', 'nope'),
          `[${name}] panel approve-2 closed (by the user)`,
          `[${name}] approve_action error: cancelled by the user: nope`,
          ...secret(0),
          ...secret(1),
          ...secret(2),
          ...secret(1),
          `[${name}] panel secret-3 closed (by the extension)`,
          `[${name}] secret error: wrong passphrase`,
        ),
      );
      expect(r.code).toBe(0);
    }
  });

  it('emits events to subscribers', async () => {
    // The echo round trip orders the lines: kitchen answers in the order it reads.
    const r = await run([ext('kitchen'), ext('weather')], script(':event turn_start {"step":1}', '!echo {"a":1}'));
    expect(r.stdout).toBe(
      script('event turn_start sent to 1 extension', '[kitchen] info: event {"type":"event","event":"turn_start","step":1}', '[kitchen] echo: {"a":1}'),
    );
  });

  it('asks the interception chain (guard)', async () => {
    const r = await run(
      [ext('guard')],
      script(
        ':intercept tool_call {"tool_name":"bash","tool_args":{"command":"rm -rf /"}}',
        ':intercept tool_call {"tool_name":"bash","tool_args":{"command":"ls"}}',
        ':intercept tool_call {"tool_name":"read","tool_args":{"path":"a"}}',
        ':intercept turn_start {"step":2}',
      ),
    );
    expect(r.stdout).toBe(
      script(
        'blocked by guard: refused: matches danger pattern "rm -rf"',
        'allowed, args rewritten: {"command":"echo GUARDED: ls"} (guard: rewrite)',
        'allowed (guard: allow)',
        'allowed (no interceptors)',
      ),
    );
    expect(r.stderr).toContain('loaded guard 1.0.0 (explicit): intercepts: tool_call\n');
    expect(r.code).toBe(0);
  });

  it(':prompt runs before_agent_start through the chain', async () => {
    const r = await run([fixture('intercept/prompt-append-a'), fixture('intercept/prompt-append-b')], script(':prompt You are terse.'));
    expect(r.stdout).toBe(script('system prompt:', 'You are terse.', '[prompt-append-a]', '[prompt-append-b]'));
  });

  it('prints panels and drives them with :key and :close', async () => {
    const r = await run([ext('todo')], script('/todo', ':key down', ':key rune x', ':key esc', '/todo', ':close'));
    const frame = (first: string, second: string) => ['┌─ Todos [todo] todos-main', `│ ${first}`, `│ ${second}`, '└─ ↑/↓ navigate - x complete - esc close'];
    expect(r.stdout.startsWith(
      script(
        ...frame('› □ ship panel api', '  □ persist state'),
        ...frame('  □ ship panel api', '› □ persist state'),
        ...frame('  □ ship panel api', '› ✓ persist state'),
        '[todo] panel todos-main closed (by the extension)',
        ...frame('  □ ship panel api', '› ✓ persist state'),
        '[todo] panel todos-main closed (by the user)',
      ),
    )).toBe(true);
    expect(r.code).toBe(0);
  });

  it('keeps two extensions\' panels with the same id apart: :key and :close reach the focused one', async () => {
    const r = await run([fixture('conflict/main-a'), fixture('conflict/main-b')], script('/main-a', '/main-b', ':key down', ':close', ':key up', ':close'));
    const frame = (name: string, line: string) => [`┌─ ${name} [${name}] main`, `│ ${line}`, '└─'];
    // The notes of the closed extensions race the other's frames: left out.
    expect(r.stdout.split('\n').filter((l) => !l.includes('] info: '))).toEqual([
      ...frame('main-a', 'main-a open'),
      ...frame('main-b', 'main-b open'),
      ...frame('main-b', 'main-b key down'),
      '[main-b] panel main closed (by the user)',
      ...frame('main-a', 'main-a key up'),
      '[main-a] panel main closed (by the user)',
      '',
    ]);
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
  });

  it('exits 1 after a failed line, with one error line per failure, and keeps going', async () => {
    const r = await run([ext('weather')], script('/nope', '!nope', '!weather {bad json', 'hello', '/weather'));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(script("[weather] prompt: Show today's weather for Berlin in one line."));
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
    expect(errors).toEqual([
      'error: unknown command /nope; registered: /Weather',
      'error: no extension tool named nope; active tools: weather, enable_forecast',
      expect.stringMatching(/^error: !weather: invalid JSON \(.*\); write a JSON object like \{"city":"Oslo"\}$/),
      'error: "hello" is not an input line: start it with /, !, or : (try :help)',
    ]);
  });

  it('exits 1 when an extension fails to load, and loads the installed ones by default', async () => {
    const failing = await run([ext('hello-sh'), fixture('faults/crash-before-hello')], script('/hello-sh'));
    expect(failing.code).toBe(1);
    expect(failing.stderr).toMatch(/^failed crash-before-hello: crash-before-hello exited with code 3 before sending hello\./m);
    expect(failing.stdout).toContain('[hello-sh] display: hello from sh\n');

    const install = await sandbox.cli('install', ext('hello-sh'));
    expect(install.code).toBe(0);
    const installed = await run([], script('/hello-sh'));
    expect(installed.stderr).toContain('loaded hello-sh 1.0.0 (global)');
    expect(installed.stdout).toContain('[hello-sh] display: hello from sh\n');
    expect(installed.code).toBe(0);
  });

  it(':quit stops before EOF; SIGTERM stops the extensions and exits', async () => {
    const quit = await run([ext('weather')], script(':quit', '/weather'));
    expect(quit.stdout).toBe('');
    expect(quit.code).toBe(0);

    const live = new CliProcess(['run', ext('weather'), ext('todo'), '--home', sandbox.home, '--cwd', sandbox.project]);
    await live.waitFor('loaded todo', 'stderr');
    live.write('!weather {"city":"Lima"}\n');
    await live.waitFor('[weather] weather: Lima: 16°C, fog\n');
    live.signal('SIGTERM');
    const result = await live.exited;
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    // test/setup.ts fails this file if the extensions are still running.
  });
  it('exits 1 with a clear message when a path does not exist or a manifest is broken', async () => {
    const missing = await run([ext('hello-sh'), `${sandbox.dir}/no-such-extension`], script('/hello-sh'));
    expect(missing.stderr).toContain(`error: extension path ${sandbox.dir}/no-such-extension does not exist`);
    // Once: the host also reports it as a warning and in report.failed (issue 33 #12); run prints the report's.
    expect(missing.stderr.split('no-such-extension does not exist').length - 1).toBe(1);
    expect(missing.stdout).toContain('[hello-sh] display: hello from sh\n');
    expect(missing.code).toBe(1);

    const broken = sandbox.source('extensions/hello-sh', (m) => ({ ...m, exec: undefined }));
    const invalid = await run([broken], '');
    expect(invalid.stderr).toMatch(/^error: .*extension\.json: "exec" is required/m);
    expect(invalid.code).toBe(1);
  });

  it('SIGINT aborts the running call at once, then exits', async () => {
    const live = new CliProcess(['run', fixture('faults/stuck-tool'), '--home', sandbox.home, '--cwd', sandbox.project]);
    await live.waitFor('loaded stuck-tool', 'stderr');
    live.write('!stuck\n');
    await live.waitFor('[stuck-tool] info: stuck: stuck started');
    live.signal('SIGINT');
    const result = await live.exited;
    expect(result.stdout).toMatch(/\[stuck-tool\] stuck error: .*abort/i);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(1);
  });

  it('prints the progress of a running !tool call as plain lines', async () => {
    const r = await run([fixture('faults/long-tool')], script('!long {"steps":2,"ms":10}'));
    expect(r.stdout).toContain('[long-tool] tool progress: step 1 (1/2)\n[long-tool] tool progress: step 2 (2/2)\n');
    expect(r.stdout).toContain('done 2');
    expect(r.code).toBe(0);
  });

  it('--timeout bounds each call; a bad value is a usage error', async () => {
    const r = await run([fixture('faults/stuck-tool'), '--timeout', '100'], script('!stuck'));
    expect(r.stdout).toMatch(/\[stuck-tool\] stuck error: .*100 ms/);
    expect(r.code).toBe(1);
    const bad = await run([fixture('faults/stuck-tool'), '--timeout', 'soon'], '');
    expect(bad.stderr).toContain('--timeout needs a whole number of milliseconds above 0, got "soon"');
    expect(bad.code).toBe(2);
  });
});
