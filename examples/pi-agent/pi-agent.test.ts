// pi's real agent loop (@mariozechner/pi-agent-core) with zot extensions: the whole scripted session.
// The example has its own package.json and lockfile (pi-ai pulls in every provider SDK): installed
// here when missing. It imports this package from dist/ (npm test builds first).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(DIR, '../..');
const run = promisify(execFile);

/** Installs the example's own dependencies when missing; the reason it could not, when the registry is unreachable. */
async function installed(): Promise<string | undefined> {
  const ready = ['node_modules/.package-lock.json', 'node_modules/@mariozechner/pi-agent-core/package.json', 'node_modules/@mariozechner/pi-ai/package.json'];
  if (ready.every((file) => existsSync(path.join(DIR, file)))) return undefined;
  try {
    await run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: DIR, timeout: 280_000 });
    return undefined;
  } catch (error) {
    const text = String((error as { stderr?: unknown }).stderr ?? error);
    // Offline (no npm registry): skip with a line that says so, except in CI, where the registry is part of the job.
    if (!process.env.CI && /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|network/i.test(text)) {
      return `examples/pi-agent skipped: its dependencies could not be installed from the npm registry (offline?): ${text.split('\n').find((l) => /ERR|error/i.test(l)) ?? text.slice(0, 200)}`;
    }
    throw error;
  }
}

let runSession: typeof import('./session.js').runSession;
let offline: string | undefined;

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'dist/index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  offline = await installed();
  if (offline) {
    console.warn(offline);
    return;
  }
  ({ runSession } = await import('./session.js'));
}, 300_000);

describe("zot extensions in pi's agent loop", () => {
  it('runs the scripted session: tools, guard, rewrite, redaction, commands, submit, system prompt', { timeout: 60_000 }, async (ctx) => {
    if (offline) return ctx.skip(offline);
    const logDir = mkdtempSync(path.join(tmpdir(), 'zot-pi-logs-'));
    try {
      const transcript = await runSession({ logDir });
      expect(transcript.lines).toEqual([
        'tools: bash, weather, enable_forecast, echo, slow, hang, crash, image, bad_result, fail, closeout',
        'extensions: guard (ready), weather (ready), kitchen (ready), redactor (ready), prompt-append-a (ready)',
        "> What's the weather in Lisbon?",
        'system prompt (before_agent_start): "You are a careful coding agent.\\n[prompt-append-a]"',
        'model faux-1 system prompt: "You are a careful coding agent.\\n[prompt-append-a]"',
        `model faux-1 (11 tools) <- user "What's the weather in Lisbon?"`,
        'tool weather {"city":"Lisbon"}',
        '  result: Lisbon: 16°C, fog',
        'model faux-1 (11 tools) <- result of weather "Lisbon: 16°C, fog"',
        'assistant: Lisbon: 16°C, fog. (debug: api key [redacted])',
        '> Clean up the disk.',
        'system prompt (cached): "You are a careful coding agent.\\n[prompt-append-a]"',
        'model faux-1 (11 tools) <- user "Clean up the disk."',
        'tool bash {"command":"rm -rf /"}',
        '  error: refused: matches danger pattern "rm -rf"',
        'model faux-1 (11 tools) <- error of bash "refused: matches danger pattern \\"rm -rf\\""',
        'tool bash {"command":"ls"}',
        '  result: GUARDED: ls',
        'model faux-1 (11 tools) <- result of bash "GUARDED: ls"',
        'assistant: The guard refused; the listing said: GUARDED: ls',
        '> /Weather Berlin',
        `[weather] /Weather -> prompt "Show today's weather for Berlin in one line."`,
        'system prompt (cached): "You are a careful coding agent.\\n[prompt-append-a]"',
        `model faux-1 (11 tools) <- user "Show today's weather for Berlin in one line."`,
        '> /bg index the repo',
        '[kitchen] submit "index the repo"',
        'queued "index the repo"',
        'tool enable_forecast {}',
        'tools: bash, weather, forecast, enable_forecast, echo, slow, hang, crash, image, bad_result, fail, closeout',
        '  result: Enabled forecast',
        'model faux-1 (11 tools) <- result of enable_forecast "Enabled forecast"',
        'assistant: Berlin: 16°C, fog. The forecast tool is on.',
        'model faux-1 (11 tools) <- user "index the repo"',
        'assistant: Indexed the repo.',
        '> /model faux-2',
        'model: faux-2',
        '> And tomorrow in Lisbon?',
        'system prompt (before_agent_start): "You are a careful coding agent.\\n[prompt-append-a]"',
        'model faux-2 (12 tools) <- user "And tomorrow in Lisbon?"',
        'tool forecast {"city":"Lisbon"}',
        '  result: Lisbon: tomorrow 18°C, sun',
        'model faux-2 (12 tools) <- result of forecast "Lisbon: tomorrow 18°C, sun"',
        'assistant: (hidden: blocked by redactor)',
        '> /nope',
        'unknown command /nope',
        '> /show bye',
        '[kitchen] bye',
      ]);
      // Every event the agent emitted reached kitchen, in order (notes arrive on their own schedule,
      // so they are compared as their own list; /show bye last makes sure all of them are in).
      expect(transcript.notes).toEqual([
        '[kitchen] info: event {"type":"event","event":"session_start"}',
        '[kitchen] info: event {"type":"event","event":"turn_start","step":1}',
        '[kitchen] info: event {"type":"event","event":"tool_call","tool_id":"call-1","tool_name":"weather","tool_args":{"city":"Lisbon"}}',
        '[kitchen] info: event {"type":"event","event":"turn_end","stop":"tool_use"}',
        '[kitchen] info: event {"type":"event","event":"turn_start","step":2}',
        '[kitchen] info: event {"type":"event","event":"assistant_message","text":"Lisbon: 16°C, fog. (debug: api key [redacted])"}',
        '[kitchen] info: event {"type":"event","event":"turn_end","stop":"end_turn"}',
        '[kitchen] info: event {"type":"event","event":"turn_start","step":1}',
        '[kitchen] info: event {"type":"event","event":"tool_call","tool_id":"call-2","tool_name":"bash","tool_args":{"command":"rm -rf /"}}',
        '[kitchen] info: event {"type":"event","event":"turn_end","stop":"tool_use"}',
        '[kitchen] info: event {"type":"event","event":"turn_start","step":2}',
        '[kitchen] info: event {"type":"event","event":"tool_call","tool_id":"call-3","tool_name":"bash","tool_args":{"command":"ls"}}',
        '[kitchen] info: event {"type":"event","event":"turn_end","stop":"tool_use"}',
        '[kitchen] info: event {"type":"event","event":"turn_start","step":3}',
        '[kitchen] info: event {"type":"event","event":"assistant_message","text":"The guard refused; the listing said: GUARDED: ls"}',
        '[kitchen] info: event {"type":"event","event":"turn_end","stop":"end_turn"}',
        '[kitchen] info: event {"type":"event","event":"turn_start","step":1}',
        '[kitchen] info: working: index the repo',
        '[kitchen] info: event {"type":"event","event":"tool_call","tool_id":"call-4","tool_name":"enable_forecast","tool_args":{}}',
        '[kitchen] info: event {"type":"event","event":"turn_end","stop":"tool_use"}',
        '[kitchen] info: event {"type":"event","event":"turn_start","step":2}',
        '[kitchen] info: event {"type":"event","event":"assistant_message","text":"Berlin: 16°C, fog. The forecast tool is on."}',
        '[kitchen] info: event {"type":"event","event":"turn_end","stop":"end_turn"}',
        '[kitchen] info: event {"type":"event","event":"turn_start","step":3}',
        '[kitchen] info: event {"type":"event","event":"assistant_message","text":"Indexed the repo."}',
        '[kitchen] info: event {"type":"event","event":"turn_end","stop":"end_turn"}',
        '[kitchen] info: event {"type":"event","event":"turn_start","step":1}',
        '[kitchen] info: event {"type":"event","event":"tool_call","tool_id":"call-5","tool_name":"forecast","tool_args":{"city":"Lisbon"}}',
        '[kitchen] info: event {"type":"event","event":"turn_end","stop":"tool_use"}',
        '[kitchen] info: event {"type":"event","event":"turn_start","step":2}',
        '[kitchen] info: event {"type":"event","event":"turn_end","stop":"end_turn"}',
      ]);
      expect(transcript.unusedModelTurns).toBe(0);
      // before_agent_start ran twice: once per model (the model change invalidated the first result).
      const passes = readFileSync(path.join(logDir, 'ext-prompt-append-a.log'), 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { model: string; provider: string; session_id: string });
      expect(passes.map(({ model, provider, session_id }) => ({ model, provider, session_id }))).toEqual([
        { model: 'faux-1', provider: 'faux', session_id: 'pi-session-1' },
        { model: 'faux-2', provider: 'faux', session_id: 'pi-session-1' },
      ]);
    } finally {
      rmSync(logDir, { recursive: true, force: true });
    }
  });

  it("type-checks against pi's own types", { timeout: 120_000 }, async (ctx) => {
    if (offline) return ctx.skip(offline);
    await expect(run(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', DIR, '--noEmit'], { cwd: ROOT })).resolves.toBeDefined();
  });
});
