// A scripted session of pi's Agent with zot extensions: the user's lines and the model's turns are
// fixed (pi-ai's faux provider, no network), the extensions are the repo's fixtures.
// Run it: `npm run build && cd examples/pi-agent && npm ci --ignore-scripts && npm start`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AgentTool } from '@mariozechner/pi-agent-core';
import { type AssistantMessage, type Context, fauxAssistantMessage, fauxToolCall, type Model, registerFauxProvider } from '@mariozechner/pi-ai';
import { ExtensionAgent } from './extension-agent.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const EXTENSIONS = ['fixtures/extensions/guard', 'fixtures/extensions/weather', 'fixtures/extensions/kitchen', 'fixtures/intercept/redactor', 'fixtures/intercept/prompt-append-a'];

export interface Transcript {
  /** The conversation, in order. */
  lines: string[];
  /** Extension notes, in arrival order (they arrive independently of the conversation). */
  notes: string[];
  /** Scripted model turns left over (0 when the session went as scripted). */
  unusedModelTurns: number;
}

const textOf = (content: string | readonly { type: string; text?: string }[]): string =>
  typeof content === 'string' ? content : content.flatMap((block) => (block.type === 'text' && block.text !== undefined ? [block.text] : [])).join('\n');

/** What the model received on a call: the last message of the context. */
function lastMessage(context: Context): string {
  const last = context.messages.at(-1);
  if (last === undefined) return '(nothing)';
  if (last.role === 'user') return `user ${JSON.stringify(textOf(last.content))}`;
  if (last.role === 'toolResult') return `${last.isError ? 'error' : 'result'} of ${last.toolName} ${JSON.stringify(textOf(last.content))}`;
  return 'assistant';
}

// The agent's own bash: prints what it would run, runs nothing (this is an example).
const bash: AgentTool = {
  name: 'bash',
  label: 'bash',
  description: 'Run a shell command.',
  parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } as AgentTool['parameters'],
  execute: async (_id, params) => {
    const { command } = params as { command: string };
    return { content: [{ type: 'text', text: command.startsWith('echo ') ? command.slice(5) : `(would run: ${command})` }], details: {} };
  },
};

export interface SessionOptions {
  /** Print the conversation and the notes as they happen. @default false */
  print?: boolean | undefined;
  /** Where the extensions' logs go. @default a temporary directory, removed at the end */
  logDir?: string | undefined;
}

export async function runSession(options: SessionOptions = {}): Promise<Transcript> {
  const lines: string[] = [];
  const notes: string[] = [];
  const ui = {
    line: (text: string) => {
      lines.push(text);
      if (options.print === true) console.log(text);
    },
    note: (note: { extension: string; level: string; message: string }) => {
      notes.push(`[${note.extension}] ${note.level}: ${note.message}`);
      if (options.print === true) console.log(`  note [${note.extension}] ${note.level}: ${note.message}`);
    },
  };
  const faux = registerFauxProvider({ provider: 'faux', models: [{ id: 'faux-1' }, { id: 'faux-2' }] });
  const home = mkdtempSync(path.join(tmpdir(), 'zot-pi-agent-'));
  const session = new ExtensionAgent({
    model: faux.getModel(),
    findModel: (id) => faux.getModel(id),
    systemPrompt: 'You are a careful coding agent.',
    sessionId: 'pi-session-1',
    tools: [bash],
    host: { cwd: home, home, discover: false, explicit: EXTENSIONS.map((dir) => path.join(ROOT, dir)), logDir: options.logDir ?? path.join(home, 'logs') },
    ui,
  });

  // One scripted model turn: log what the model got, then answer.
  let systemPrompt: string | undefined;
  const turn =
    (answer: (seen: { text: string }) => AssistantMessage | Promise<AssistantMessage>) =>
    async (context: Context, _options: unknown, _state: unknown, model: Model<string>) => {
      if (context.systemPrompt !== systemPrompt) ui.line(`model ${model.id} system prompt: ${JSON.stringify((systemPrompt = context.systemPrompt))}`);
      ui.line(`model ${model.id} (${context.tools?.length ?? 0} tools) <- ${lastMessage(context)}`);
      const last = context.messages.at(-1);
      return answer({ text: last?.role === 'toolResult' ? textOf(last.content) : '' });
    };
  const call = (name: string, args: Record<string, unknown>, id: string) => fauxAssistantMessage(fauxToolCall(name, args, { id }), { stopReason: 'toolUse' });
  faux.setResponses([
    // "What's the weather in Lisbon?"
    turn(() => call('weather', { city: 'Lisbon' }, 'call-1')),
    turn(({ text }) => fauxAssistantMessage(`${text}. (debug: api key sk-live-4242)`)),
    // "Clean up the disk."
    turn(() => call('bash', { command: 'rm -rf /' }, 'call-2')),
    turn(() => call('bash', { command: 'ls' }, 'call-3')),
    turn(({ text }) => fauxAssistantMessage(`The guard refused; the listing said: ${text}`)),
    // "/Weather Berlin": the user types /bg while the model works; kitchen's submit is queued
    turn(async () => {
      await session.type('/bg index the repo');
      return call('enable_forecast', {}, 'call-4');
    }),
    turn(() => fauxAssistantMessage('Berlin: 16°C, fog. The forecast tool is on.')),
    turn(() => fauxAssistantMessage('Indexed the repo.')),
    // after "/model faux-2": "And tomorrow in Lisbon?"
    turn(() => call('forecast', { city: 'Lisbon' }, 'call-5')),
    turn(({ text }) => fauxAssistantMessage(`${text} BLOCKME`)),
  ]);

  try {
    const report = await session.start();
    ui.line(`extensions: ${session.host.extensions().map((ext) => `${ext.name} (${ext.state})`).join(', ')}`);
    for (const failed of report.failed) ui.line(`failed: ${failed.name}: ${failed.error.message}`);
    await session.input("What's the weather in Lisbon?");
    await session.input('Clean up the disk.');
    await session.input('/Weather Berlin');
    await session.input('/model faux-2');
    await session.input('And tomorrow in Lisbon?');
    await session.input('/nope');
    // Last: kitchen answers in order, so its notes about everything before have arrived.
    await session.input('/show bye');
  } finally {
    await session.stop();
    faux.unregister();
    rmSync(home, { recursive: true, force: true });
  }
  return { lines, notes, unusedModelTurns: faux.getPendingResponseCount() };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { unusedModelTurns } = await runSession({ print: true });
  if (unusedModelTurns !== 0) throw new Error(`${unusedModelTurns} scripted model turns were not used`);
}
