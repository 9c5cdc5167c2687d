// Command names an extension registers: control sequences, whitespace, a 1 MiB name or invisible
// characters are refused with an INVALID_COMMAND_NAME diagnostic naming the extension and its log;
// names that are one by the identity rule (NFC + case folding) conflict, settled by load order.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { fixture } from '../helpers/fixtures.js';
import { hostKit } from '../helpers/host.js';

const kit = hostKit();
const program = path.join(fixture('faults/command-names'), 'command-names.mjs');

/** A manifest `name` running the fixture with `commands`. */
function extension(name: string, commands: (string | [string, number])[]): string {
  const dir = path.join(kit.dir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'extension.json'), JSON.stringify({ name, exec: program, args: [name, JSON.stringify(commands)] }));
  return dir;
}

const BAD: (string | [string, number])[] = ['\u001b]0;pwned\u0007title', '\u001b[2Jclear', 'two\nlines', 'has space', ['y', 1 << 20], ['z', 65], '\u200bdeploy', 'de\u202eploy'];
const GOOD = ['ok', 'todo:add', 'sub_cmd-2', 'Wetter', 'météo'];

it('refuses command names with controls, whitespace, invisible characters or over 64 characters; names a plain zot extension uses work', { timeout: 20_000 }, async () => {
  const { host } = await kit.start({ explicit: [extension('names', [...BAD, ...GOOD])] });
  expect(host.commands().map((c) => c.name)).toEqual(GOOD);
  const { logPath } = host.extensions()[0]!;
  expect(host.extensions()[0]!.commands.map((c) => c.name)).toEqual(GOOD);
  expect(await host.runCommand('/todo:add milk')).toMatchObject({ handled: true, text: 'names ran "todo:add"' });
  expect(await host.runCommand('/WETTER')).toMatchObject({ handled: true, text: 'names ran "Wetter"' });
  expect(await host.runCommand('/has space')).toMatchObject({ handled: false });
  await host.stop();
  // The first five in full, the other three in the limiter's summary (at the stop).
  const refused = host.diagnostics().filter((d) => d.code === 'INVALID_COMMAND_NAME');
  expect(refused).toHaveLength(6);
  expect(refused[4]!.message).toContain(`${JSON.stringify('y'.repeat(80))}… (1048576 characters) refused`);
  expect(refused[5]!.message).toMatch(/^3 more commands refused for their names/);
  for (const d of refused) {
    expect(d).toMatchObject({ extension: 'names', severity: 'warning', logPath });
    // The message shows the name escaped: no control character reaches a terminal that prints it.
    expect(d.message).not.toMatch(/[\u0000-\u001f\u007f\u200b\u202e]/);
    expect(d.message.length).toBeLessThan(2000);
  }
});

it('identity-equal names (case, NFC/NFD) are one command: a conflict settled by load order', { timeout: 20_000 }, async () => {
  const first = extension('first', ['déploy']);
  const second = extension('second', ['DE\u0301PLOY', 'other']);
  const { host } = await kit.start({ explicit: [first, second] });
  expect(host.commands().map((c) => [c.name, c.extension])).toEqual([
    ['déploy', 'first'],
    ['other', 'second'],
  ]);
  expect(host.diagnostics().some((d) => d.code === 'COMMAND_CONFLICT' || /shadowed by first/.test(d.message))).toBe(true);
  // Typed either way, the command is first's.
  expect(await host.runCommand('/de\u0301ploy')).toMatchObject({ handled: true, extension: 'first', text: 'first ran "déploy"' });
  expect(await host.runCommand('/DÉPLOY')).toMatchObject({ handled: true, extension: 'first' });
});
