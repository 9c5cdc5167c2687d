// Runs my-extension with the test kit: first inside the test process (no subprocess, no stdio, a
// few milliseconds), then once as the real subprocess its extension.json describes.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestHost, type TestHost } from '../../src/testing/index.js';
import ext from './extension.js';

describe('my-extension', () => {
  let t: TestHost;
  beforeAll(async () => {
    t = await createTestHost({ extensions: [ext] });
  });
  afterAll(() => t.close());

  it('/my-extension says hello', async () => {
    expect(await t.command('/my-extension zot')).toMatchObject({ action: 'display', text: 'hello, zot' });
    expect(await t.command('/my-extension')).toMatchObject({ action: 'display', text: 'hello, world' });
  });

  it('the shout tool upper-cases its text', async () => {
    const result = await t.callTool('shout', { text: 'hi there' });
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'HI THERE' }] });
  });

  it('bad tool args are refused before the handler runs', async () => {
    const result = await t.callTool('shout', { text: '' });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining('text: ') }]);
  });
});

describe('my-extension as a subprocess, launched through extension.json', () => {
  let t: TestHost;
  beforeAll(async () => {
    // A directory runs as a real process; tsx compiles at start, so allow more than the default 2 s.
    t = await createTestHost({ extensions: [fileURLToPath(new URL('.', import.meta.url))], timeoutMs: 10_000 });
  }, 20_000);
  afterAll(() => t.close(), 20_000);

  it('starts, answers and stops', async () => {
    expect(t.host.extensions()[0]).toMatchObject({ name: 'my-extension', state: 'ready' });
    expect(await t.command('/my-extension zot')).toMatchObject({ action: 'display', text: 'hello, zot' });
  });
});
