/**
 * The quick start of README.md, kept runnable: the README's code block is an excerpt of this file
 * (test/docs.test.ts) and it runs in CI (test/examples.test.ts). It runs in a scratch project whose
 * `.zot/extensions` holds the `weather`, `guard` and `hello-sh` fixtures, with a scratch `$ZOT_HOME`.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExtensionHost } from '../src/index.js';
import type { ToolInfo } from '../src/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const scratch = mkdtempSync(path.join(tmpdir(), 'zot-quickstart-'));
const extensions = path.join(scratch, 'project/.zot/extensions');
mkdirSync(extensions, { recursive: true });
cpSync(path.join(root, 'fixtures/extensions/weather'), path.join(extensions, 'weather'), { recursive: true });
cpSync(path.join(root, 'fixtures/extensions/hello-sh'), path.join(extensions, 'hello-sh'), { recursive: true });
symlinkSync(path.join(root, 'fixtures/extensions/guard'), path.join(extensions, 'guard'));
process.env.ZOT_HOME = path.join(scratch, 'home');
process.chdir(path.join(scratch, 'project'));

// Stand-ins for the agent and its UI.
const agent = {
  submitted: [] as string[],
  tools: [] as ToolInfo[],
  submit(text: string): void {
    this.submitted.push(text);
  },
  setTools(tools: ToolInfo[]): void {
    this.tools = tools;
  },
};
let noted: () => void = () => {};
const firstNote = new Promise<void>((resolve) => (noted = resolve));
const ui = {
  notes: [] as string[],
  note(line: string): void {
    this.notes.push(line);
    noted();
  },
};

const host = new ExtensionHost({
  cwd: process.cwd(),
  provider: 'anthropic',
  model: 'claude-opus-4-7',
  callbacks: {
    prompt: ({ text }) => agent.submit(text),
    notify: ({ extension, level, message }) => ui.note(`[${extension}] ${level}: ${message}`),
    toolsChanged: (tools) => agent.setTools(tools),
  },
});
try {
  const report = await host.start();             // never throws because of an extension
  assert.deepEqual(report.loaded.map((e) => e.name), ['guard', 'hello-sh', 'weather']);
  assert.deepEqual(agent.tools.map((t) => t.name), ['weather', 'enable_forecast']);
  await host.runCommand('/weather Berlin');      // -> prompt callback
  assert.deepEqual(agent.submitted, ["Show today's weather for Berlin in one line."]);
  const result = await host.callTool('weather', { city: 'Oslo' });  // { content, isError, ... }, never throws
  assert.deepEqual([result.content, result.isError], [[{ type: 'text', text: 'Oslo: 16°C, fog' }], false]);
  const d = await host.intercepts.toolCall({ toolId: 't1', toolName: 'bash', args: { command: 'ls' } });
  assert.deepEqual([d.block, d.args], [false, { command: 'echo GUARDED: ls' }]);   // the guard rewrote it
  await firstNote;
  assert.deepEqual(ui.notes, ['[hello-sh] success: hello-sh ready']);
} finally {
  await host.stop();
  process.chdir(root);
  rmSync(scratch, { recursive: true, force: true });
}
console.log('quickstart: ok');
