// Tracing off never loads @opentelemetry/api: the built package runs (start, a tool call, a command,
// an intercept chain) in a child whose resolve hook makes any import of @opentelemetry/* throw; with
// tracing on, the same hook makes start() reject with TRACING_UNAVAILABLE (the hook does catch the
// host's import). And the ESM bundle has no static import of it.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fixture, ROOT, tempDir } from '../helpers/fixtures.js';

const TEST_MS = 20_000;
const DIST = path.join(ROOT, 'dist');
const CHILD = path.join(ROOT, 'test/helpers/no-otel-child.mjs');

async function runChild(mode: 'off' | 'on'): Promise<Record<string, unknown>> {
  const home = tempDir('zot-no-otel-');
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [CHILD, DIST, fixture('extensions/kitchen'), mode], { timeout: 15_000, env: { ...process.env, ZOT_TEST_HOME: home.dir } });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
  } finally {
    home.cleanup();
  }
}

describe('tracing off', () => {
  it('never imports @opentelemetry/api (start, tool call, command, intercept chain)', { timeout: TEST_MS }, async () => {
    expect(await runChild('off')).toEqual({ loaded: ['kitchen'], tool: '{"text":"hi"}', command: true, intercept: false });
  });

  it('the positive control: with tracing on the hook catches the import, and start() says how to fix it', { timeout: TEST_MS }, async () => {
    const out = await runChild('on');
    expect(out.error).toMatchObject({ code: 'TRACING_UNAVAILABLE', message: expect.stringMatching(/blocked by the test: @opentelemetry\/api.*npm i @opentelemetry\/api/) });
  });

  it('the ESM bundle has no static import of @opentelemetry/*', () => {
    for (const file of readdirSync(DIST).filter((f) => f.endsWith('.js'))) {
      const code = readFileSync(path.join(DIST, file), 'utf8');
      expect(code, file).not.toMatch(/(^|[;\n])\s*import[^()]*?from\s*["']@opentelemetry\//);
      expect(code, file).not.toMatch(/import\s*["']@opentelemetry\//);
    }
  });
});
