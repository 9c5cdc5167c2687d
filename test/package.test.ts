// The published package as a user gets it: what `npm pack` ships, its types in a strict consumer that
// has none of the optional peers, and the subpaths' types under the oldest module resolution
// TypeScript still offers (node10). Run after `npm run build` (npm test does).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('types of the packed package in a strict consumer without the optional peers', () => {
  // The tarball is unpacked into the consumer's node_modules (a copy, not a link to this repository,
  // whose node_modules has every peer); its dependencies are linked from ours, as `npm install` would
  // give them; `@opentelemetry/api`, the MCP SDK and `@types/ws` are not there.
  const temp = tempDir('zot-consumer-');
  afterAll(() => temp.cleanup());
  const modules = path.join(temp.dir, 'node_modules');
  const installed = path.join(modules, 'zot-extension-host');
  const tsc = (project: string) => spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], { encoding: 'utf8', timeout: 90_000 });

  beforeAll(() => {
    expect(existsSync(path.join(ROOT, 'dist/sdk.d.cts')), 'run npm run build first').toBe(true);
    const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', temp.dir], { cwd: ROOT, encoding: 'utf8', timeout: 50_000 });
    const tarball = path.join(temp.dir, (JSON.parse(out) as { filename: string }[])[0]!.filename);
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1'], { timeout: 30_000 });
    const pkg = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const dep of Object.keys(pkg.dependencies)) symlinkSync(path.join(ROOT, 'node_modules', dep), path.join(modules, dep), 'dir');
    mkdirSync(path.join(modules, '@types'));
    symlinkSync(path.join(ROOT, 'node_modules/@types/node'), path.join(modules, '@types/node'), 'dir');
  }, 60_000);

  it('the consumer has none of the optional peers that are not dependencies', () => {
    const pkg = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; peerDependenciesMeta: Record<string, { optional?: boolean }> };
    expect(Object.keys(pkg.peerDependenciesMeta)).toContain('@opentelemetry/api');
    for (const peer of Object.keys(pkg.peerDependenciesMeta).filter((name) => !(name in pkg.dependencies))) expect(existsSync(path.join(modules, peer)), peer).toBe(false);
  });

  it('its declaration files import only its dependencies and node: built-ins (no optional peer, no MCP SDK, no ws types)', () => {
    const pkg = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const dist = path.join(installed, 'dist');
    const declarations = readdirSync(dist).filter((file) => /\.d\.c?ts$/.test(file));
    expect(declarations.length).toBeGreaterThan(4);
    const imported = new Set<string>();
    for (const file of declarations) {
      const text = readFileSync(path.join(dist, file), 'utf8');
      for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) if (!m[1]!.startsWith('.')) imported.add(m[1]!);
    }
    const bare = [...imported].filter((name) => !name.startsWith('node:'));
    expect(bare.filter((name) => !(name.split('/')[0]! in pkg.dependencies || name in pkg.dependencies))).toEqual([]);
  });

  const consumer = [
    "import { ExtensionHost, type StartReport, type TracerProviderLike, type TracingSettings } from 'zot-extension-host';",
    "import { defineExtension } from 'zot-extension-host/sdk';",
    "import { createTestHost } from 'zot-extension-host/testing';",
    "import { ExtensionFrame } from 'zot-extension-host/schemas';",
    '',
    'const provider: TracerProviderLike = { getTracer: () => ({}) };',
    'const settings: TracingSettings = { tracerProvider: provider };',
    '// Not `any` without @opentelemetry/api: a provider without getTracer() is refused.',
    '// @ts-expect-error getTracer must be a function',
    'const wrong: TracingSettings = { tracerProvider: { getTracer: 1 } };',
    'export async function main(): Promise<StartReport> {',
    '  const host = new ExtensionHost({ discover: false, tracing: settings });',
    '  void defineExtension; void createTestHost; void ExtensionFrame; void wrong;',
    "  const result = await host.callTool('echo');",
    '  void result.failure?.code;',
    '  return host.start();',
    '}',
    '',
  ].join('\n');
  const strict = { target: 'ES2022', lib: ['ES2022'], strict: true, exactOptionalPropertyTypes: true, noEmit: true, skipLibCheck: false, types: ['node'] };

  it.each([
    ['module nodenext (ESM and CommonJS files)', { module: 'nodenext', moduleResolution: 'nodenext' }, ['consumer.mts', 'consumer.cts']],
    ['moduleResolution bundler', { module: 'esnext', moduleResolution: 'bundler' }, ['consumer.ts']],
  ] as const)('tsc --noEmit with skipLibCheck: false passes under %s', { timeout: 100_000 }, (name, resolution, files) => {
    const project = path.join(temp.dir, name.split(' ')[1]!);
    mkdirSync(project);
    for (const file of files) writeFileSync(path.join(project, file), consumer);
    writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...strict, ...resolution }, files }));
    const run = tsc(project);
    expect(run.stdout + run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
