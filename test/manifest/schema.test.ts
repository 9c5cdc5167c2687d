import { describe, expect, it } from 'vitest';
import { MAX_NAME_LENGTH, Manifest, nameProblem } from '../../src/manifest/index.js';

describe('extension names', () => {
  it.each(['weather', 'hello-py', 'my_ext.v2', 'Wetter', 'über', 'a', 'x'.repeat(MAX_NAME_LENGTH), 'two words'])(
    'accepts %j',
    (name) => expect(nameProblem(name)).toBeUndefined(),
  );

  it.each([
    ['', 'empty'],
    ['a/b', 'path separator'],
    ['a\\b', 'path separator'],
    ['..', '".."'],
    ['a..b', '".."'],
    ['.', '"."'],
    ['tab\there', 'control character'],
    ['nul\u0000', 'control character'],
    ['c1\u0085', 'control character'],
    ['x'.repeat(MAX_NAME_LENGTH + 1), 'longer than'],
    [' padded', 'whitespace'],
    ['-rf', 'CLI flag'],
    ['con:1', 'path separator or one of'],
    ['what?', 'path separator or one of'],
  ])('refuses %j (%s)', (name, why) => {
    expect(nameProblem(name)).toContain(why);
    expect(Manifest.safeParse({ name, exec: 'x' }).success).toBe(false);
  });

  it('counts characters, not UTF-16 units', () => {
    expect(nameProblem('😀'.repeat(MAX_NAME_LENGTH))).toBeUndefined();
  });
});

describe('Manifest schema', () => {
  it('parses the spec example and keeps unknown fields', () => {
    const example = {
      name: 'weather',
      version: '1.0.0',
      exec: './weather',
      args: ['--mode', 'daemon'],
      language: 'go',
      description: 'current weather for any city',
      enabled: true,
      homepage: 'https://example.com',
    };
    expect(Manifest.parse(structuredClone(example))).toEqual(example);
  });

  it('defaults enabled to true', () => {
    expect(Manifest.parse({ name: 'a' }).enabled).toBe(true);
    expect(Manifest.parse({ name: 'a', enabled: false }).enabled).toBe(false);
  });

  it('rejects an empty exec and empty skills entries', () => {
    expect(Manifest.safeParse({ name: 'a', exec: '' }).success).toBe(false);
    expect(Manifest.safeParse({ name: 'a', skills: [''] }).success).toBe(false);
  });
});
