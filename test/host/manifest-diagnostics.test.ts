// Manifests discovery refuses are host diagnostics too (host.diagnostics(), the 'diagnostic' event),
// not only entries of start()'s report; a root full of them costs a bounded number.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExtensionHostError } from '../../src/errors.js';
import type { HostDiagnostic, HostWarning } from '../../src/host/types.js';
import { copyFixture, tempDirs } from '../helpers/fixtures.js';
import { hostKit } from '../helpers/host.js';

const kit = hostKit();
// 10,000 directories take seconds to remove on a busy machine: more than the default hook timeout.
const big = tempDirs();
afterAll(() => big.cleanup(), 60_000);

/** Writes `<cwd>/.zot/extensions/<dir>/extension.json` with `text`; returns its path. */
function manifest(cwd: string, dir: string, text: string): string {
  const at = path.join(cwd, '.zot', 'extensions', dir);
  mkdirSync(at, { recursive: true });
  writeFileSync(path.join(at, 'extension.json'), text);
  return path.join(at, 'extension.json');
}

const refused = (list: readonly HostDiagnostic[]) => list.filter((d) => d.code === 'MANIFEST_INVALID');

describe('refused manifests in host.diagnostics()', () => {
  it('names each bad manifest (bad JSON, a schema violation, no exec) by path and problem; the good one loads', { timeout: 15_000 }, async () => {
    const cwd = path.join(kit.dir, 'mixed');
    const badJson = manifest(cwd, 'bad-json', '{"name": "bad-json", "exec": "./x",}');
    const badField = manifest(cwd, 'bad-field', JSON.stringify({ name: 'bad-field', exec: 42 }));
    const noExec = manifest(cwd, 'no-exec', JSON.stringify({ name: 'no-exec' }));
    copyFixture('extensions/hello-sh', path.join(cwd, '.zot', 'extensions', 'hello-sh'));
    const { host } = kit.create({ cwd, discover: true });
    const emitted: HostDiagnostic[] = [];
    host.on('diagnostic', (d) => emitted.push(d));
    const report = await host.start();

    expect(report.loaded.map((l) => l.name)).toEqual(['hello-sh']);
    const mine = refused(host.diagnostics());
    expect(mine).toEqual([
      { code: 'MANIFEST_INVALID', severity: 'error', path: badField, extension: 'bad-field', message: expect.stringMatching(/"exec".*string/) },
      { code: 'MANIFEST_INVALID', severity: 'error', path: badJson, message: expect.stringContaining(`${badJson}:1:`) },
      { code: 'MANIFEST_INVALID', severity: 'error', path: noExec, extension: 'no-exec', message: expect.stringContaining('"exec" is required') },
    ]);
    for (const d of mine) expect(d.message).toContain(d.path);
    expect(refused(emitted)).toEqual(mine);
    // The report keeps discovery's own codes, once each.
    expect(report.diagnostics.filter((d) => [badJson, badField, noExec].includes(d.path ?? '')).map((d) => d.code)).toEqual(['MANIFEST_INVALID', 'MANIFEST_INVALID_JSON', 'EXEC_MISSING']);
  });

  it('lists 100 of 10,000 bad manifests and counts the rest in one summary', { timeout: 60_000 }, async () => {
    const cwd = await big.make('zot-bad-manifests-');
    for (let i = 0; i < 10_000; i++) manifest(cwd, `bad-${String(i).padStart(5, '0')}`, '{not json');
    const { host } = kit.create({ cwd, discover: true });
    const report = await host.start();

    expect(report.diagnostics.filter((d) => d.code === 'MANIFEST_INVALID_JSON')).toHaveLength(10_000);
    const mine = refused(host.diagnostics());
    expect(mine).toHaveLength(101);
    expect(mine[0]!.path).toBe(path.join(cwd, '.zot', 'extensions', 'bad-00000', 'extension.json'));
    expect(mine[100]).toEqual({ code: 'MANIFEST_INVALID', severity: 'error', message: expect.stringMatching(/^9900 more manifests could not be loaded/) });
    // A reload lists them again, within the host's cap.
    await host.reload();
    expect(refused(host.diagnostics())).toHaveLength(202);
    expect(host.diagnostics().length).toBeLessThanOrEqual(1000);
  });
});

describe('every discovery diagnostic reaches the embedder where it looks', () => {
  it('a missing explicit path and an explicit invalid manifest: report.failed (typed), warning callback and event, host.diagnostics(); the good one loads', { timeout: 15_000 }, async () => {
    const cwd = path.join(kit.dir, 'explicit-failures');
    const missing = path.join(cwd, 'no-such-ext');
    const invalid = path.join(cwd, 'invalid');
    mkdirSync(invalid, { recursive: true });
    writeFileSync(path.join(invalid, 'extension.json'), JSON.stringify({ name: 'invalid', exec: 42 }));
    const good = copyFixture('extensions/hello-sh', path.join(cwd, 'hello-sh'));
    const warned: HostWarning[] = [];
    const { host } = kit.create({ cwd, explicit: [missing, invalid, good], callbacks: { warning: (w) => warned.push(w) } });
    const emitted: HostDiagnostic[] = [];
    host.on('diagnostic', (d) => emitted.push(d));
    const report = await host.start();

    expect(report.loaded.map((l) => l.name)).toEqual(['hello-sh']);
    expect(report.failed).toEqual([
      { name: 'no-such-ext', source: 'explicit', logPath: undefined, path: missing, error: expect.objectContaining({ code: 'MANIFEST_INVALID', message: expect.stringMatching(/^PATH_NOT_FOUND: .*no-such-ext/) }) },
      { name: 'invalid', source: 'explicit', logPath: undefined, path: path.join(invalid, 'extension.json'), error: expect.objectContaining({ code: 'MANIFEST_INVALID', message: expect.stringMatching(/^MANIFEST_INVALID: .*"exec"/) }) },
    ]);
    for (const f of report.failed) expect(f.error).toBeInstanceOf(ExtensionHostError);
    expect(warned.map((w) => [w.code, w.path])).toEqual([
      ['PATH_NOT_FOUND', missing],
      ['MANIFEST_INVALID', path.join(invalid, 'extension.json')],
    ]);
    const pathNotFound = { code: 'PATH_NOT_FOUND', severity: 'error', path: missing, message: expect.stringContaining(missing) };
    expect(host.diagnostics()).toContainEqual(pathNotFound);
    expect(emitted).toContainEqual(pathNotFound);
    // The report keeps discovery's own diagnostics, once each.
    expect(report.diagnostics.filter((d) => d.code === 'PATH_NOT_FOUND')).toHaveLength(1);
  });

  it('SHADOWED and SKILL_* diagnostics are host diagnostics and warnings too', { timeout: 15_000 }, async () => {
    const cwd = path.join(kit.dir, 'shadowed');
    copyFixture('extensions/hello-sh', path.join(cwd, '.zot', 'extensions', 'hello-sh'));
    const mine = copyFixture('extensions/hello-sh', path.join(cwd, 'mine'), (m) => ({ ...m, skills: ['no-such-skill'] }));
    const warned: HostWarning[] = [];
    const { host } = kit.create({ cwd, discover: true, explicit: [mine], callbacks: { warning: (w) => warned.push(w) } });
    const report = await host.start();

    expect(report.loaded.map((l) => l.name)).toEqual(['hello-sh']);
    expect(report.failed).toEqual([]);
    const codes = host.diagnostics().map((d) => d.code);
    expect(codes).toContain('SHADOWED');
    expect(codes).toContain('SKILL_PATH_MISSING');
    expect(warned.map((w) => w.code)).toEqual(expect.arrayContaining(['SHADOWED', 'SKILL_PATH_MISSING']));
    expect(host.diagnostics().find((d) => d.code === 'SHADOWED')).toMatchObject({ severity: 'warning', extension: 'hello-sh', path: path.join(cwd, '.zot', 'extensions', 'hello-sh', 'extension.json') });
  });
});
