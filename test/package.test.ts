// The published package as a user gets it: what `npm pack` ships, and the subpaths' types under the
// oldest module resolution TypeScript still offers (node10). Run after `npm run build` (npm test does).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from './helpers/fixtures.js';

const packed: string[] = (() => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  return (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
})();

describe('npm pack', () => {
  it('ships the license, the readme, the changelog, every doc and the built entries', () => {
    for (const file of ['LICENSE', 'README.md', 'CHANGELOG.md', 'package.json', 'dist/index.js', 'dist/index.cjs', 'dist/cli.js']) expect(packed).toContain(file);
    const docs = execFileSync('git', ['ls-files', 'docs'], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n');
    expect(docs.length).toBeGreaterThan(5);
    for (const doc of docs) expect(packed).toContain(doc);
    expect(readFileSync(path.join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} zot-extension-host contributors\n/);
  });

  it('ships the Python SDK (modules and py.typed, no caches) and both extension templates', () => {
    const sdk = readdirSync(path.join(ROOT, 'python', 'zot_ext')).filter((f) => f.endsWith('.py') || f === 'py.typed');
    expect(sdk).toContain('__init__.py');
    for (const file of sdk) expect(packed).toContain(`python/zot_ext/${file}`);
    expect(packed.filter((f) => f.includes('__pycache__') || f.startsWith('python/tests/'))).toEqual([]);
    for (const file of ['examples/extension-template/gitignore', 'examples/extension-template/tsconfig.json', 'examples/python-template/extension.py', 'examples/python-template/test_extension.py']) {
      expect(packed).toContain(file);
    }
  });

  it('every relative link of README.md points at a packed file', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((href) => !/^[a-z]+:/i.test(href) && !href.startsWith('#'));
    expect(links.length).toBeGreaterThan(5);
    const dead = links.map((href) => path.posix.normalize(href.split('#')[0]!)).filter((file) => !packed.includes(file));
    expect(dead).toEqual([]);
  });

  it('names where the project lives', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.license).toBe('MIT');
    expect(pkg.repository).toMatchObject({ type: 'git', url: expect.stringMatching(/^git\+https:\/\/github\.com\/.+\.git$/) });
    expect(pkg.homepage).toMatch(/^https:\/\//);
    expect(pkg.bugs).toMatchObject({ url: expect.stringMatching(/^https:\/\/.+\/issues$/) });
  });
});

describe('types under moduleResolution node10', () => {
  const temp = tempDir('zot-node10-');
  afterAll(() => temp.cleanup());

  it('a CommonJS consumer type-checks the root and every subpath, `await using` included', { timeout: 60_000 }, () => {
    expect(existsSync(path.join(ROOT, 'dist/sdk.d.cts')), 'run npm run build first').toBe(true);
    mkdirSync(path.join(temp.dir, 'node_modules'));
    symlinkSync(ROOT, path.join(temp.dir, 'node_modules/zot-extension-host'), 'dir');
    writeFileSync(
      path.join(temp.dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'commonjs', moduleResolution: 'node', target: 'ES2022', lib: ['ES2022'], strict: true, noEmit: true, skipLibCheck: true, types: ['node'], typeRoots: [path.join(ROOT, 'node_modules/@types')] },
        files: ['consumer.ts'],
      }),
    );
    writeFileSync(
      path.join(temp.dir, 'consumer.ts'),
      [
        "import { ExtensionHost, type StartReport } from 'zot-extension-host';",
        "import { defineExtension } from 'zot-extension-host/sdk';",
        "import { createTestHost } from 'zot-extension-host/testing';",
        "import { ExtensionFrame } from 'zot-extension-host/schemas';",
        'export async function main(): Promise<StartReport> {',
        '  await using host = new ExtensionHost({ discover: false });',
        '  void defineExtension; void createTestHost; void ExtensionFrame;',
        '  return host.start();',
        '}',
        '',
      ].join('\n'),
    );
    const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', temp.dir], { encoding: 'utf8', timeout: 50_000 });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  });
});
