// Permission scopes on the wire, the environment policy and secret redaction, over real fixtures.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/errors.js';
import { callToolExplicit } from '../../src/host/security.js';
import type { CommandOutcome } from '../../src/host/types.js';
import { fixture } from '../helpers/fixtures.js';
import { constructionError, hostKit, textOf } from '../helpers/host.js';

const kit = hostKit();
const kitchen = fixture('extensions/kitchen');
const guard = fixture('extensions/guard');
const envDump = fixture('faults/env-dump');
const TOKEN = 'zot-test-secret-4711';
const failureOf = (o: CommandOutcome) => (o.handled ? o.failure : undefined);

describe('permission scopes', { timeout: 30_000 }, () => {
  it('refuses what the scope lacks, with one diagnostic per scope, and nothing reaches the agent', async () => {
    const { host, rec } = await kit.start({ explicit: [kitchen], permissions: { default: { commands: true } } });
    expect(host.commands().length).toBeGreaterThan(0);
    expect(host.tools()).toEqual([]);
    const info = host.extensions()[0]!;
    expect(info.permissions).toEqual({ granted: ['commands'], requested: undefined });
    expect(info.subscriptions.events).toEqual([]);
    // /bg sends notify and submit: both refused; the command itself still answers.
    for (let i = 0; i < 3; i++) expect(failureOf(await host.runCommand('/bg job'))).toBeUndefined();
    const panel = await host.runCommand('/panel');
    expect(failureOf(panel)?.code).toBe(ErrorCode.PERMISSION_DENIED);
    expect(rec.of('notify')).toEqual([]);
    expect(rec.of('submit')).toEqual([]);
    expect(rec.of('openPanel')).toEqual([]);
    const denied = host.diagnostics().filter((d) => d.code === 'PERMISSION_DENIED');
    expect(denied.map((d) => d.message.match(/do not include "?(\w+)/)?.[1]).sort()).toEqual(['events', 'notes', 'panels', 'submit', 'tools']);
    expect(denied.every((d) => d.extension === 'kitchen' && d.logPath === info.logPath)).toBe(true);
  });

  it('byExtension and lists: an interceptor without the intercept scope is not in the chain', async () => {
    const { host } = await kit.start({ explicit: [guard, kitchen], permissions: { default: 'all', byExtension: { guard: { commands: true } } } });
    const decision = await host.intercepts.toolCall({ toolId: 't1', toolName: 'bash', args: { command: 'rm -rf /' } });
    expect(decision.block).toBe(false);
    expect(host.extensions().find((e) => e.name === 'kitchen')!.permissions.granted).toEqual(['commands', 'tools', 'events', 'intercept', 'submit', 'panels', 'notes', 'call_tool']);
    const partial = await kit.start({ explicit: [kitchen], permissions: { default: { events: ['turn_start'] } } });
    expect(partial.host.extensions()[0]!.subscriptions.events).toEqual(['turn_start']);
  });

  it("a manifest's request narrows the grant, never widens it, and unknown names are named", async () => {
    // The manifest only: exec is the fixture's own program (its imports resolve from there).
    const dir = path.join(kit.dir, 'kitchen-narrow');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'extension.json'), JSON.stringify({ name: 'kitchen', exec: path.join(kitchen, 'kitchen.mjs'), permissions: ['tools', 'submit', 'network'] }));
    const { host } = await kit.start({ explicit: [dir], permissions: { default: { tools: true, commands: true } } });
    expect(host.commands()).toEqual([]);
    expect(host.tools().length).toBeGreaterThan(0);
    expect(host.extensions()[0]!.permissions).toEqual({ granted: ['tools'], requested: ['tools', 'submit', 'network'] });
    const messages = host.diagnostics().map((d) => d.message).join('\n');
    expect(messages).toContain('unknown permission "network"');
    expect(messages).toContain('kitchen requests submit, which the host\'s permissions do not grant');
  });
});

describe("call_tool granted explicitly (what lets a sandboxed extension call built-in tools)", () => {
  it("only the permissions option, for the extension or as its default, granting call_tool; never the implicit 'everything'", () => {
    expect(callToolExplicit(undefined, 'x')).toBe(false);
    expect(callToolExplicit({}, 'x')).toBe(false);
    expect(callToolExplicit({ default: 'all' }, 'x')).toBe(true);
    expect(callToolExplicit({ default: { callTool: true } }, 'x')).toBe(true);
    expect(callToolExplicit({ default: { tools: true } }, 'x')).toBe(false);
    expect(callToolExplicit({ default: 'all', byExtension: { X: { tools: true } } }, 'x')).toBe(false);
    expect(callToolExplicit({ byExtension: { x: { callTool: true } } }, 'X')).toBe(true);
    expect(callToolExplicit({ byExtension: { y: 'all' } }, 'x')).toBe(false);
  });
});

describe('environment policy', { timeout: 30_000 }, () => {
  const saved = { ...process.env };
  beforeAll(() => {
    process.env.ZOT_TEST_TOKEN = TOKEN;
    process.env.ZOT_TEST_API_KEY = 'sk-should-not-leak';
  });
  afterAll(() => {
    for (const key of ['ZOT_TEST_TOKEN', 'ZOT_TEST_API_KEY']) if (saved[key] === undefined) delete process.env[key];
  });

  const envOf = async (options: Parameters<typeof kit.start>[0]) => {
    const { host } = await kit.start({ explicit: [envDump], ...options });
    return { host, env: JSON.parse(textOf(await host.callTool('env', {}))) as Record<string, string> };
  };

  it("inherit (the default) passes the host's whole environment", async () => {
    const { env } = await envOf({});
    expect(env.ZOT_TEST_API_KEY).toBe('sk-should-not-leak');
    expect(env.ZOT_TEST_TOKEN).toBe(TOKEN);
  });

  it('minimal passes the allowlist, the allowed declared variables and envByExtension only', async () => {
    const { host, env } = await envOf({ env: 'minimal', envAllow: ['ZOT_TEST_TOKEN'], envByExtension: { 'env-dump': { MODE: 'ci' } } });
    expect(env.ZOT_TEST_API_KEY).toBeUndefined();
    expect(env.ZOT_TEST_TOKEN).toBe(TOKEN);
    expect(env.PATH).toBe(process.env.PATH);
    expect(env.MODE).toBe('ci');
    expect(Object.keys(env).every((k) => ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'TMPDIR', 'TZ', 'ZOT_TEST_TOKEN', 'MODE'].includes(k) || k.startsWith('LC_'))).toBe(true);
    const missing = host.diagnostics().filter((d) => d.code === 'ENV_MISSING');
    expect(missing.map((d) => d.message)).toEqual(['env-dump declares the environment variable ZOT_TEST_UNSET, not passed: env is \'minimal\' and envAllow does not list it']);
  });

  it('a declared variable not allowed is not passed; an object env stays the exact environment', async () => {
    const denied = await envOf({ env: 'minimal' });
    expect(denied.env.ZOT_TEST_TOKEN).toBeUndefined();
    const exact = await envOf({ env: { PATH: process.env.PATH, ONLY: '1' } });
    expect(Object.keys(exact.env).sort()).toEqual(['ONLY', 'PATH']);
  });

  it("declared secret values never appear in the host's diagnostics or log lines", async () => {
    const { host } = await envOf({ env: 'minimal', envAllow: ['ZOT_TEST_*'] });
    await host.runCommand('/leak');
    const level = host.diagnostics().find((d) => d.code === 'UNKNOWN_LEVEL');
    expect(level?.message).toContain('level-***');
    expect(JSON.stringify(host.diagnostics())).not.toContain(TOKEN);
    const logPath = host.extensions()[0]!.logPath;
    await host.stop();
    expect(readFileSync(logPath, 'utf8')).not.toContain(TOKEN);
  });

  it('a quoted line is redacted before it is cut: no piece of a secret is left at the cut', async () => {
    const { host } = await envOf({ env: 'minimal', envAllow: ['ZOT_TEST_*'] });
    const events: string[] = [];
    host.on('diagnostic', (d) => events.push(d.message));
    // The line is 105 `x` and the token: the quote of it is cut at 120 characters, inside the token.
    await host.runCommand('/leak-line');
    await host.runCommand('/leak-line');
    const notJson = host.diagnostics().filter((d) => d.code === 'NOT_JSON');
    expect(notJson).toHaveLength(2);
    expect(notJson[0]!.message).toContain(`${'x'.repeat(105)}***`);
    const logPath = host.extensions()[0]!.logPath;
    await host.stop();
    const piece = TOKEN.slice(0, 8);
    expect(JSON.stringify(host.diagnostics())).not.toContain(piece);
    expect(JSON.stringify(events)).not.toContain(piece);
    expect(readFileSync(logPath, 'utf8')).not.toContain(piece);
  });
});

describe('by-name options and the name identity rule', { timeout: 30_000 }, () => {
  /** A manifest named `name` that runs the program of `fixtureDir` (its imports resolve from there). */
  const renamed = (fixtureDir: string, name: string, program: string, extra: Record<string, unknown> = {}) => {
    const dir = path.join(kit.dir, `renamed-${name}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'extension.json'), JSON.stringify({ name, exec: path.join(fixtureDir, program), ...extra }));
    return dir;
  };

  it("permissions.byExtension written for 'guard' applies to a manifest named 'Guard'", async () => {
    const dir = renamed(guard, 'Guard', 'guard.py');
    const { host } = await kit.start({ explicit: [dir], permissions: { default: 'all', byExtension: { guard: { commands: true } } } });
    expect(host.extensions()[0]!.permissions.granted).toEqual(['commands']);
    // Without the intercept scope the guard is not in the chain: nothing is blocked.
    expect((await host.intercepts.toolCall({ toolId: 't', toolName: 'bash', args: { command: 'rm -rf /' } })).block).toBe(false);
  });

  it("interceptPolicy written for 'deaf' applies to a manifest named 'DEAF': its failing interceptor blocks", async () => {
    const dir = renamed(fixture('faults/deaf-interceptor'), 'DEAF', 'deaf-interceptor.mjs');
    const { host } = await kit.start({ explicit: [dir], interceptPolicy: { deaf: { onFailure: 'block' } }, timeouts: { intercept: 300 } });
    expect((await host.intercepts.toolCall({ toolId: 't', toolName: 'bash', args: { command: 'ls' } })).block).toBe(true);
  });

  it('two keys of one by-name option that name the same extension are refused at construction', () => {
    for (const options of [{ permissions: { byExtension: { guard: 'all', Guard: 'none' } } }, { envByExtension: { 'd\u00e9ploy': {}, 'de\u0301ploy': {} } }, { interceptPolicy: { a: {}, A: {} } }]) {
      const error = constructionError(options);
      expect(error.code).toBe(ErrorCode.INVALID_OPTIONS);
      expect(error.message).toMatch(/has the keys ".+" and ".+", which name the same extension/);
    }
  });

  it("envByExtension written for 'env-dump' applies to a manifest named 'ENV-Dump' (NFC and case folding)", async () => {
    const dir = renamed(envDump, 'ENV-Dump', 'env-dump.mjs');
    const { host } = await kit.start({ explicit: [dir], env: 'minimal', envByExtension: { 'env-dump': { MODE: 'ci' } } });
    const env = JSON.parse(textOf(await host.callTool('env', {}))) as Record<string, string>;
    expect(env.MODE).toBe('ci');
  });
});

describe('docs/security.md examples', { timeout: 30_000 }, () => {
  it('the permission policy of the docs', async () => {
    const { create } = kit;
    const { host } = create({
      explicit: [guard, kitchen],
      // docs/security.md: the options as shown there.
      permissions: {
        default: { commands: true, tools: true, notes: true },                // every extension not listed
        byExtension: {
          guard: { intercept: ['tool_call'] },                                // a policy guard: nothing else
          prompts: { intercept: ['before_agent_start'] },                     // sees the whole system prompt
          todo: { commands: true, panels: true, events: ['turn_end'] },
          trusted: 'all',
        },
      },
    });
    await host.start();
    expect((await host.intercepts.toolCall({ toolId: 't', toolName: 'bash', args: { command: 'rm -rf /' } })).block).toBe(true);
    expect(host.commands().every((c) => c.extension === 'kitchen')).toBe(true);
    expect(host.extensions().find((e) => e.name === 'kitchen')!.subscriptions.events).toEqual([]);
  });

  it('the environment policy of the docs', async () => {
    const { host } = kit.create({
      explicit: [envDump],
      env: 'minimal',
      envAllow: ['GITHUB_TOKEN', 'JIRA_*'],
      envByExtension: { deploy: { DEPLOY_ENV: 'staging' } },
    });
    await host.start();
    const env = JSON.parse(textOf(await host.callTool('env', {}))) as Record<string, string>;
    expect(env.ZOT_TEST_TOKEN).toBeUndefined();
    expect(env.DEPLOY_ENV).toBeUndefined();
  });
});
