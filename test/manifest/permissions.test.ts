// Permission errors cannot be produced with chmod when the tests run as root, so the fs calls for
// chosen paths are made to fail with EACCES; the chmod variant runs as well when not root.
import { chmod } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { DiagnosticCode, ManifestDiscovery } from '../../src/manifest/index.js';
import { tempDirs } from '../helpers/fixtures.js';
import { processExt, tree, under } from './tree.js';

const denied = new Set<string>();

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const guard =
    <A extends unknown[], R>(fn: (p: never, ...rest: A) => Promise<R>) =>
    (p: unknown, ...rest: A): Promise<R> => {
      if (typeof p === 'string' && denied.has(p)) {
        return Promise.reject(Object.assign(new Error(`EACCES: permission denied, '${p}'`), { code: 'EACCES' }));
      }
      return fn(p as never, ...rest);
    };
  return { ...actual, readdir: guard(actual.readdir), realpath: guard(actual.realpath) };
});

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const readFile = (p: unknown, options: unknown, callback: (err: Error | null, data?: Buffer) => void) => {
    if (typeof p === 'string' && denied.has(p)) {
      process.nextTick(callback, Object.assign(new Error(`EACCES: permission denied, open '${p}'`), { code: 'EACCES' }));
      return;
    }
    (actual.readFile as (...args: unknown[]) => void)(p, options, callback);
  };
  return { ...actual, default: { ...actual, readFile }, readFile };
});

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

async function setup() {
  const base = await dirs.make();
  await tree(base, {
    ...under('home/extensions/locked-dir', processExt('locked-dir')),
    ...under('home/extensions/locked-manifest', processExt('locked-manifest')),
    ...under('home/extensions/ok', processExt('ok')),
    'home/extensions/skilled/extension.json': { name: 'skilled', exec: 'node', skills: ['skills'] },
    'home/extensions/skilled/skills/a/SKILL.md': '---\nname: a\n---\n',
  });
  return base;
}

describe('unreadable directories and files', () => {
  it('reports EACCES on a root, an extension directory, a manifest and a skills entry, and goes on', async () => {
    const base = await setup();
    const ext = (d: string) => path.join(base, 'home/extensions', d);
    const project = path.join(base, 'project/.zot/extensions');
    await tree(base, under('project/.zot/extensions/p', processExt('p')));
    for (const p of [
      project,
      ext('locked-dir'),
      path.join(ext('locked-dir'), 'extension.json'),
      path.join(ext('locked-manifest'), 'extension.json'),
      path.join(ext('skilled'), 'skills'),
    ]) {
      denied.add(p);
    }
    try {
      const result = await new ManifestDiscovery({ cwd: path.join(base, 'project'), home: path.join(base, 'home') }).discover();
      expect(result.extensions.map((e) => e.name)).toEqual(['ok', 'skilled']);
      expect(result.diagnostics.map((d) => [d.code, d.severity, d.path])).toEqual([
        [DiagnosticCode.DIR_UNREADABLE, 'error', project],
        [DiagnosticCode.DIR_UNREADABLE, 'error', ext('locked-dir')],
        [DiagnosticCode.MANIFEST_UNREADABLE, 'error', path.join(ext('locked-manifest'), 'extension.json')],
        [DiagnosticCode.SKILL_PATH_MISSING, 'error', path.join(ext('skilled'), 'skills')],
      ]);
      for (const d of result.diagnostics) expect(d.message).toContain('permission denied');
    } finally {
      denied.clear();
    }
  });

  it.skipIf(process.getuid?.() === 0 || process.platform === 'win32')('reports a directory chmod 000 for real', async () => {
    const base = await setup();
    const locked = path.join(base, 'home/extensions/locked-dir');
    await chmod(locked, 0o000);
    try {
      const result = await new ManifestDiscovery({ cwd: base, home: path.join(base, 'home') }).discover();
      expect(result.diagnostics.map((d) => [d.code, d.path])).toContainEqual([DiagnosticCode.DIR_UNREADABLE, locked]);
      expect(result.extensions.map((e) => e.name)).toContain('ok');
    } finally {
      await chmod(locked, 0o755);
    }
  });
});
