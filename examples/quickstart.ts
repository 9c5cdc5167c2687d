/**
 * The quick start of README.md, kept runnable: the README's code block is an excerpt of this file
 * (test/docs.test.ts), this file runs in CI (test/examples.test.ts), and so does the README block
 * itself, pasted as is into a file next to the built package. Run from the repository root: the
 * explicit paths are bundled fixtures. A scratch $ZOT_HOME keeps the machine's own extensions out.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExtensionHost } from '../src/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const scratch = mkdtempSync(path.join(tmpdir(), 'zot-quickstart-'));
process.env.ZOT_HOME = scratch;
process.chdir(root);
const lines: string[] = [];
const log = console.log;
console.log = (...args: unknown[]) => void lines.push(args.map(String).join(' '));

try {
  // The README block from here (its import is the one above).
  // Stand-ins for your agent and its UI.
  const agent = { submit: (text: string) => console.log(`prompt: ${text}`), setTools: (tools: { name: string }[]) => console.log(`tools: ${tools.map((t) => t.name).join(', ')}`) };
  const ui = { note: (line: string) => console.log(line) };

  const host = new ExtensionHost({
    cwd: process.cwd(),
    // Two bundled fixtures, relative to a clone of this repository. Installed extensions are found in
    // <cwd>/.zot/extensions and in <home>/extensions ($ZOT_HOME, else ~/.local/state/zot on Linux): docs/discovery.md.
    explicit: ['fixtures/extensions/weather', 'fixtures/extensions/guard'],
    provider: 'anthropic',
    model: 'claude-opus-4-7',
    callbacks: {
      prompt: ({ text }) => agent.submit(text),
      notify: ({ extension, level, message }) => ui.note(`[${extension}] ${level}: ${message}`),
      toolsChanged: (tools) => agent.setTools(tools),
    },
  });
  const report = await host.start();             // never throws because of an extension
  console.log(`loaded: ${report.loaded.map((e) => e.name).join(', ')}; searched: ${report.searched.join(', ')}`);
  await host.runCommand('/weather Berlin');      // -> prompt callback
  const result = await host.callTool('weather', { city: 'Oslo' });  // { content, isError, ... }, never throws
  console.log(result.content);
  const d = await host.intercepts.toolCall({ toolId: 't1', toolName: 'bash', args: { command: 'ls' } });
  console.log(d.block, d.args);                  // the guard rewrote it
  await host.stop();
  // The README block ends here.

  const searched = ['fixtures/extensions/weather', 'fixtures/extensions/guard', '.zot/extensions'].map((p) => path.join(root, p));
  assert.deepEqual(lines.slice(0, 3), [
    'tools: weather, enable_forecast',
    `loaded: weather, guard; searched: ${[...searched, path.join(scratch, 'extensions')].join(', ')}`,
    "prompt: Show today's weather for Berlin in one line.",
  ]);
  assert.equal(lines.length, 5);
  assert.deepEqual(result.content, [{ type: 'text', text: 'Oslo: 16°C, fog' }]);
  assert.deepEqual([d.block, d.args], [false, { command: 'echo GUARDED: ls' }]);
} finally {
  console.log = log;
  rmSync(scratch, { recursive: true, force: true });
}
console.log('quickstart: ok');
