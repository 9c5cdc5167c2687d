import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../src/manifest/index.js';

describe('parseFrontMatter', () => {
  it('reads plain and quoted scalars', () => {
    expect(
      parseFrontMatter(
        `---\nname: pdf-tools\ndescription: "Fill \\"PDF\\" forms: fast"\nlicense: 'it''s MIT'\nversion: 2 # a comment\n---\nbody: not this\n`,
      ),
    ).toEqual({ name: 'pdf-tools', description: 'Fill "PDF" forms: fast', license: "it's MIT", version: '2' });
  });

  it('reads continued lines and block scalars', () => {
    const text = [
      '---',
      'name: long',
      'description: Use this skill when',
      '  the user asks for it.',
      'folded: >',
      '  one',
      '  two',
      '',
      '  three',
      'literal: |-',
      '  line 1',
      '  line 2',
      'meta:',
      '  nested: value',
      'list:',
      '  - a',
      '---',
    ].join('\r\n');
    expect(parseFrontMatter(text)).toEqual({
      name: 'long',
      description: 'Use this skill when the user asks for it.',
      folded: 'one two\nthree',
      literal: 'line 1\nline 2',
    });
  });

  it('returns nothing without a front matter block', () => {
    expect(parseFrontMatter('# Title\nname: x\n')).toEqual({});
    expect(parseFrontMatter('---\nname: unterminated\n')).toEqual({});
    expect(parseFrontMatter('')).toEqual({});
  });

  it('accepts a byte order mark and "..." as the end marker', () => {
    expect(parseFrontMatter('\uFEFF---\nname: x\n...\n')).toEqual({ name: 'x' });
  });
});
