// remove / enable / disable / list, run as real processes against temp homes.
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { copyFixture, readJson } from '../helpers/fixtures.js';
import { runCli, useCliSandbox } from './cli.js';

const sandbox = useCliSandbox('zot-cli-');
const { cli, globalDir, projectDir, source } = sandbox;

describe('remove, enable, disable', { timeout: 30_000 }, () => {
  beforeEach(async () => {
    expect((await cli('install', source('extensions/weather'))).code).toBe(0);
  });

  it('disable and enable rewrite only "enabled", keeping the other keys and their order', async () => {
    const file = path.join(globalDir('weather'), 'extension.json');
    const original = readJson(file) as Record<string, unknown>;
    const off = await cli('disable', 'weather');
    expect(off.code).toBe(0);
    expect(off.stdout).toBe('disabled weather (global)\n');
    const disabled = readJson(file) as Record<string, unknown>;
    expect(disabled).toEqual({ ...original, enabled: false });
    expect(Object.keys(disabled)).toEqual([...Object.keys(original), 'enabled']);

    const again = await cli('disable', 'weather');
    expect(again.stdout).toBe('weather (global) is already disabled\n');

    const on = await cli('enable', 'weather');
    expect(on.code).toBe(0);
    const enabled = readJson(file) as Record<string, unknown>;
    expect(enabled).toEqual({ ...original, enabled: true });
    expect(Object.keys(enabled)).toEqual(Object.keys(disabled));
  });

  it('keeps unknown fields and the file formatting', async () => {
    const file = path.join(globalDir('weather'), 'extension.json');
    const text = '{"name":"weather","x-extra":{"nested":[1,2]},"enabled":true,"exec":"./weather.py"}';
    writeFileSync(file, text);
    expect((await cli('disable', 'weather')).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(text.replace('"enabled":true', '"enabled":false'));
  });

  it('list shows the state', async () => {
    await cli('disable', 'weather');
    const r = await cli('list', '--json');
    const rows = (JSON.parse(r.stdout) as { extensions: { name: string; state: string }[] }).extensions;
    expect(rows.map((x) => [x.name, x.state])).toEqual([['weather', 'disabled']]);
  });

  it('remove deletes the directory; a symlinked extension loses only its link', async () => {
    const r = await cli('remove', 'weather');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`removed weather (global): ${globalDir('weather')}\n`);
    expect(existsSync(globalDir('weather'))).toBe(false);

    const dev = source('extensions/hello-sh');
    symlinkSync(dev, globalDir('hello-sh'));
    const unlinked = await cli('remove', 'hello-sh');
    expect(unlinked.code).toBe(0);
    expect(unlinked.stdout).toContain('its target');
    expect(existsSync(globalDir('hello-sh'))).toBe(false);
    expect(existsSync(path.join(dev, 'hello.sh'))).toBe(true);
  });

  it('refuses an unknown name, suggesting a case-insensitive match', async () => {
    for (const command of ['remove', 'enable', 'disable']) {
      const r = await cli(command, 'Weather');
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('no extension named "Weather"');
      expect(r.stderr).toContain('did you mean "weather"?');
    }
    const none = await cli('remove', 'nothing-here');
    expect(none.stderr).toContain('run zot-ext list to see the installed names');
    expect(existsSync(globalDir('weather'))).toBe(true);
  });

  it('refuses a name installed in both scopes until --project or --global picks one', async () => {
    expect((await cli('install', source('extensions/weather'), '--project')).code).toBe(0);
    for (const command of ['remove', 'enable', 'disable']) {
      const r = await cli(command, 'weather');
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `zot-ext: error: "weather" is installed in both scopes (project: ${projectDir('weather')}, global: ${globalDir('weather')}); add --project or --global to pick one\n`,
      );
    }
    const off = await cli('disable', 'weather', '--project');
    expect(off.stdout).toBe('disabled weather (project)\n');
    expect((readJson(path.join(projectDir('weather'), 'extension.json')) as { enabled?: boolean }).enabled).toBe(false);
    expect((readJson(path.join(globalDir('weather'), 'extension.json')) as { enabled?: boolean }).enabled).toBeUndefined();

    const gone = await cli('remove', 'weather', '--global');
    expect(gone.code).toBe(0);
    expect(existsSync(globalDir('weather'))).toBe(false);
    expect(existsSync(projectDir('weather'))).toBe(true);
  });

  it('removes a broken extension by its directory name', async () => {
    mkdirSync(globalDir('broken'));
    writeFileSync(path.join(globalDir('broken'), 'extension.json'), '{ nope');
    const r = await cli('remove', 'broken');
    expect(r.code).toBe(0);
    expect(existsSync(globalDir('broken'))).toBe(false);
  });
});

describe('list', { timeout: 30_000 }, () => {
  it('lists both scopes with name, version, scope, state, description and path', async () => {
    await cli('install', source('extensions/weather'));
    await cli('install', source('extensions/hello-sh'));
    await cli('install', source('extensions/weather'), '--project');
    await cli('disable', 'hello-sh');
    mkdirSync(globalDir('broken'));
    writeFileSync(path.join(globalDir('broken'), 'extension.json'), '{"name": "broken"}');

    const json = await cli('list', '--json');
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as { home: string; extensions: Record<string, unknown>[] };
    expect(parsed.home).toBe(sandbox.home);
    expect(parsed.extensions.map((e) => [e.name, e.version, e.scope, e.state])).toEqual([
      ['weather', '1.0.0', 'project', 'enabled'],
      ['hello-sh', '1.0.0', 'global', 'disabled'],
      ['weather', '1.0.0', 'global', 'shadowed'],
      ['broken', null, 'global', 'invalid'],
    ]);
    expect(parsed.extensions[0]).toMatchObject({ description: 'current weather for any city', path: projectDir('weather'), kind: 'process' });
    expect(parsed.extensions[3]!.problem).toContain('"exec" is required');

    const text = await cli('list');
    const lines = text.stdout.split('\n');
    expect(lines[0]).toMatch(/^NAME +VERSION +SCOPE +STATE +DESCRIPTION +PATH$/);
    expect(lines[1]).toMatch(new RegExp(`^weather +1\\.0\\.0 +project +enabled +current weather for any city +${projectDir('weather')}$`));
    expect(text.stdout).toContain('error: ');
    expect(text.stdout).not.toMatch(/\x1b\[/);
  });

  it('warns about an exec that is missing or not executable after the table', async () => {
    await cli('install', source('extensions/hello-sh', (m) => ({ ...m, exec: './not-built.sh' })));
    const plain = source('extensions/hello-sh', (m) => ({ ...m, name: 'plain' }));
    chmodSync(path.join(plain, 'hello.sh'), 0o644);
    await cli('install', plain);
    const r = await cli('list');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^hello-sh +1\.0\.0 +global +enabled /m);
    expect(r.stdout).toContain(`warning: ${path.join(globalDir('hello-sh'), 'extension.json')}: exec "./not-built.sh" was not found`);
    expect(r.stdout).toContain(`warning: ${path.join(globalDir('plain'), 'extension.json')}: exec "./hello.sh" is not executable`);
    const json = JSON.parse((await cli('list', '--json')).stdout) as { diagnostics: { code: string }[] };
    expect(json.diagnostics.map((d) => d.code).sort()).toEqual(['EXEC_NOT_EXECUTABLE', 'EXEC_NOT_FOUND']);
  });

  it('says where it looked when nothing is installed', async () => {
    const r = await cli('list');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`no extensions installed (project: ${path.join(sandbox.project, '.zot', 'extensions')}, global: ${path.join(sandbox.home, 'extensions')})\n`);
  });

  it('honours --app for the project directory', async () => {
    mkdirSync(path.join(sandbox.project, '.myagent', 'extensions'), { recursive: true });
    copyFixture('extensions/weather', path.join(sandbox.project, '.myagent', 'extensions', 'weather'));
    const r = await runCli(['list', '--json', '--app', 'myagent', '--cwd', sandbox.project, '--home', sandbox.home]);
    expect((JSON.parse(r.stdout) as { extensions: { name: string }[] }).extensions.map((e) => e.name)).toEqual(['weather']);
  });
});
