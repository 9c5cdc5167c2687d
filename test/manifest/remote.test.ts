// Remote extensions in manifests and explicit entries: url and headers validated by discovery,
// explicit URL strings named from the URL, env:NAME header values resolved without showing a value.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DiagnosticCode, ManifestDiscovery } from '../../src/manifest/index.js';
import { MAX_HEADERS, nameFromUrl, redactUrl, redactUrlsIn, resolveHeaders } from '../../src/manifest/remote.js';
import { tempDirs } from '../helpers/fixtures.js';
import { tree } from './tree.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

async function discover(manifest: Record<string, unknown> | undefined, explicit: string[] = []) {
  const base = await dirs.make();
  if (manifest !== undefined) await tree(base, { 'ext/extension.json': manifest });
  const discovery = new ManifestDiscovery({ cwd: base, home: path.join(base, 'home'), discover: false, explicit: manifest !== undefined ? [path.join(base, 'ext'), ...explicit] : explicit, checkExec: true });
  return { base, ...(await discovery.discover()) };
}

describe('a url manifest', () => {
  it('is a process extension with url and headers, no exec needed', async () => {
    const { extensions, diagnostics } = await discover({ name: 'guard', url: 'wss://guard.example:7000/ext', headers: { Authorization: 'env:GUARD_AUTH' } });
    expect(diagnostics).toEqual([]);
    expect(extensions[0]).toMatchObject({ name: 'guard', kind: 'process', manifest: { url: 'wss://guard.example:7000/ext', headers: { Authorization: 'env:GUARD_AUTH' } } });
  });

  it.each([
    [{ exec: './run.sh', url: 'ws://127.0.0.1:1/' }, 'use either "exec" (a program to run) or "url" (a remote extension), not both'],
    [{ exec: './run.sh', headers: { A: 'b' } }, '"headers" are sent to a remote extension only'],
    [{ url: 'http://127.0.0.1:1/' }, 'has the scheme "http"; a remote extension is reached over "ws://" or "wss://"'],
    [{ url: 'not a url' }, 'is not a valid URL'],
    [{ url: 42 }, '"url" must be a string (a ws:// or wss:// URL), got number 42'],
    [{ url: 'ws://h:1/', headers: { 'Bad Name': 'x' } }, 'header name "Bad Name" is not an HTTP token'],
    [{ url: 'ws://h:1/', headers: { A: 'x\r\nInjected: y' } }, 'the value of header A contains CR, LF or NUL'],
    [{ url: 'ws://h:1/', headers: { A: 'env:not-a-name' } }, 'is not env:NAME'],
    [{ url: 'ws://h:1/', headers: Object.fromEntries(Array.from({ length: MAX_HEADERS + 1 }, (_, i) => [`H${i}`, 'v'])) }, `at most ${MAX_HEADERS} headers`],
    [{ url: 'ws://h:1/', headers: { A: 1 } }, '"headers"[A] must be a string'],
  ])('refuses %j with a clear MANIFEST_INVALID', async (fields, message) => {
    const { extensions, diagnostics } = await discover({ name: 'bad', ...fields });
    expect(extensions).toEqual([]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: DiagnosticCode.MANIFEST_INVALID, extension: 'bad' });
    expect(diagnostics[0]!.message).toContain(message);
  });

  it('never quotes a header value in a diagnostic', async () => {
    const { diagnostics } = await discover({ name: 'bad', url: 'ws://h:1/', headers: { A: 'Bearer s3cret\n' } });
    expect(diagnostics[0]!.message).not.toContain('s3cret');
  });
});

describe('an explicit URL', () => {
  it('is a remote extension named from host, port and path', async () => {
    const { base, extensions, diagnostics } = await discover(undefined, ['ws://10.0.0.5:7000/guard/v1']);
    expect(diagnostics).toEqual([]);
    expect(extensions).toMatchObject([{ name: '10.0.0.5-7000-guard-v1', kind: 'process', source: 'explicit', dir: base, manifestPath: 'ws://10.0.0.5:7000/guard/v1', manifest: { url: 'ws://10.0.0.5:7000/guard/v1' } }]);
  });

  it('a manifest of the same name wins over a later URL (the usual explicit order)', async () => {
    const { extensions, diagnostics } = await discover({ name: 'h-1', url: 'ws://h:1/' }, ['ws://h:1/']);
    expect(extensions.map((e) => [e.name, e.shadowedBy?.name])).toEqual([
      ['h-1', undefined],
      ['h-1', 'h-1'],
    ]);
    expect(diagnostics.map((d) => d.code)).toEqual([DiagnosticCode.DUPLICATE_NAME]);
  });

  it('another scheme is URL_INVALID, the password redacted', async () => {
    const { extensions, diagnostics } = await discover(undefined, ['https://user:pw@example.com/x']);
    expect(extensions).toEqual([]);
    expect(diagnostics).toMatchObject([{ code: DiagnosticCode.URL_INVALID, severity: 'error', path: 'https://***:***@example.com/x' }]);
    expect(diagnostics[0]!.message).toContain('has the scheme "https"');
    expect(diagnostics[0]!.message).not.toContain('pw');
  });
});

describe('remote helpers', () => {
  it('nameFromUrl makes a safe name', () => {
    expect(nameFromUrl('ws://127.0.0.1:8080/')).toBe('127.0.0.1-8080');
    expect(nameFromUrl('wss://guard.example.com/a/../b?x=1')).toBe('guard.example.com-b');
    expect(nameFromUrl('ws://[::1]:9/x')).toBe('1-9-x');
    expect(nameFromUrl(`ws://h/${'a'.repeat(200)}`)).toHaveLength(64);
  });

  it('redactUrlsIn hides the user name and password of every URL in a text, nothing else', () => {
    expect(redactUrlsIn('cannot reach ws://me:pw@h:1/p or "wss://tok@h2/" (mail me@example.com)')).toBe('cannot reach ws://***@h:1/p or "wss://***@h2/" (mail me@example.com)');
    expect(redactUrlsIn('ws://h:1/p?a=b@c')).toBe('ws://h:1/p?a=b@c');
  });

  it('redactUrl hides user name and password only', () => {
    expect(redactUrl('wss://me:pw@h:1/p?q=1')).toBe('wss://***:***@h:1/p?q=1');
    expect(redactUrl('ws://h:1/p')).toBe('ws://h:1/p');
  });

  it('resolveHeaders replaces env:NAME by the whole value and reports a missing one by name', () => {
    expect(resolveHeaders({ Authorization: 'env:T', X: 'plain' }, { T: 'Bearer a b' })).toEqual({ ok: true, headers: { Authorization: 'Bearer a b', X: 'plain' }, secrets: ['Bearer a b'] });
    expect(resolveHeaders({ Authorization: 'env:T' }, {})).toEqual({ ok: false, header: 'Authorization', variable: 'T', problem: 'is not set' });
    expect(resolveHeaders({ A: 'env:T' }, { T: 'x\ny' })).toMatchObject({ ok: false, problem: 'contains CR, LF or NUL' });
  });
});
