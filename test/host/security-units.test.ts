// Pure parts of the security model: scopes, the environment policy, confusable names.
import { describe, expect, it } from 'vitest';
import { ALL, environmentFor, grantFor, permissionNameProblem, scopeNames } from '../../src/host/security.js';
import { Redactor } from '../../src/process/redact.js';
import { nameKey, nameProblem } from '../../src/manifest/limits.js';

describe('permission scopes', () => {
  it('allow everything without a policy, and nothing missing from a scope object', () => {
    expect(grantFor(undefined, 'x')).toBe(ALL);
    expect(scopeNames(grantFor({ default: { tools: true } }, 'x'))).toEqual(['tools']);
    expect(scopeNames(grantFor({ default: 'none' }, 'x'))).toEqual([]);
  });

  it('byExtension replaces the default for that extension only', () => {
    const policy = { default: 'none' as const, byExtension: { guard: { intercept: ['tool_call' as const] } } };
    expect(scopeNames(grantFor(policy, 'guard'))).toEqual(['intercept:tool_call']);
    expect(scopeNames(grantFor(policy, 'other'))).toEqual([]);
    expect(scopeNames(grantFor(policy, 'constructor'))).toEqual([]); // no prototype lookups
  });

  it('a manifest request narrows the grant and never widens it', () => {
    const policy = { default: { tools: true, events: ['turn_start'], intercept: true } };
    expect(scopeNames(grantFor(policy, 'x', ['tools', 'commands', 'events', 'intercept:before_agent_start']))).toEqual([
      'tools',
      'events:turn_start',
      'intercept:before_agent_start',
    ]);
    expect(scopeNames(grantFor(undefined, 'x', []))).toEqual([]);
  });

  it('names unknown permission names', () => {
    expect(permissionNameProblem('tools')).toBeUndefined();
    expect(permissionNameProblem('events:custom')).toBeUndefined();
    expect(permissionNameProblem('intercept:tool_call')).toBeUndefined();
    expect(permissionNameProblem('intercept:nope')).toContain('intercept:<event> takes one of');
    expect(permissionNameProblem('network')).toContain('unknown permission "network"');
  });
});

describe('environment policy', () => {
  const source = { PATH: '/bin', HOME: '/h', LC_ALL: 'C', ANTHROPIC_API_KEY: 'sk-ant-1', GITHUB_TOKEN: 'ghp_secret', OTHER: 'x' };

  it('inherit passes everything; an object is the exact environment', () => {
    expect(environmentFor({ source, option: undefined }).env).toEqual(source);
    expect(environmentFor({ source, option: { ONLY: '1' } }).env).toEqual({ ONLY: '1' });
  });

  it('minimal passes the allowlist, and declared variables only when allowed', () => {
    const r = environmentFor({ source, option: 'minimal', declared: ['GITHUB_TOKEN', 'ANTHROPIC_API_KEY', 'NOT_SET'], allow: ['GITHUB_*', 'NOT_SET'] });
    expect(r.env).toEqual({ PATH: '/bin', HOME: '/h', LC_ALL: 'C', GITHUB_TOKEN: 'ghp_secret' });
    expect(r.missing).toEqual([
      { name: 'ANTHROPIC_API_KEY', reason: 'not_allowed' },
      { name: 'NOT_SET', reason: 'not_set' },
    ]);
    expect(r.secrets).toEqual(['ghp_secret']);
  });

  it('what the embedder sets per extension applies in every mode', () => {
    expect(environmentFor({ source, option: 'minimal', set: { MODE: 'ci', PATH: undefined } }).env).toEqual({ HOME: '/h', LC_ALL: 'C', MODE: 'ci' });
  });

  it('Windows: names are case-insensitive and the system variables pass', () => {
    const r = environmentFor({ source: { Path: 'C:\\', SystemRoot: 'C:\\Windows', Secret: 's3cret' }, option: 'minimal', declared: ['SECRET'], allow: ['SECRET'], platform: 'win32' });
    expect(r.env).toEqual({ Path: 'C:\\', SystemRoot: 'C:\\Windows', Secret: 's3cret' });
  });

  it('redacts secret values, also as escaped in a JSON string, and not values too short to be secrets', () => {
    expect(new Redactor(['ghp_secret']).redact('token ghp_secret leaked twice: ghp_secret')).toBe('token *** leaked twice: ***');
    expect(new Redactor(['a"b\\c']).redact(JSON.stringify({ v: 'a"b\\c' }))).toBe('{"v":"***"}');
    expect(new Redactor(['abc']).redact('abc')).toBe('abc');
  });
});

describe('confusable names', () => {
  it.each([
    ['zero-width space', 'gu\u200bard', 'U+200B'],
    ['right-to-left override', '\u202eguard', 'U+202E'],
    ['bidi isolate', 'guard\u2066', 'U+2066'],
    ['soft hyphen', 'gu\u00adard', 'U+00AD'],
    ['word joiner', 'gu\u2060ard', 'U+2060'],
    ['byte order mark', '\ufeffguard', 'U+FEFF'],
    ['variation selector', 'guard\ufe0f', 'U+FE0F'],
    ['line separator', 'gu\u2028ard', 'U+2028'],
  ])('rejects a name with a %s', (_what, name, code) => {
    expect(nameProblem(name)).toContain(`invisible or reordering character ${code}`);
  });

  it('accepts visible non-ASCII names', () => {
    for (const name of ['guärd', '日本', 'café', 'e\u0301']) expect(nameProblem(name)).toBeUndefined();
  });

  it('compares names after NFC normalisation and case folding', () => {
    expect(nameKey('Guard')).toBe(nameKey('guard'));
    expect(nameKey('gua\u0308rd')).toBe(nameKey('guärd'));
    expect(nameKey('STRASSE')).toBe(nameKey('straße'));
    expect(nameKey('guard')).not.toBe(nameKey('guards'));
  });
});
