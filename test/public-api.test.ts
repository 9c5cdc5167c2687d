// The public surface is curated: these tests fail when something is exported by accident.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as root from '../src/index.js';
import * as schemas from '../src/schemas/index.js';
import * as sdk from '../src/sdk/index.js';
import * as testing from '../src/testing/index.js';
import { ROOT } from './helpers/fixtures.js';

const ROOT_EXPORTS = [
  'DEFAULT_MAX_FRAME_BYTES',
  'DiagnosticCode',
  'EVENT_NAMES',
  'ErrorCode',
  'ExtensionHost',
  'ExtensionHostError',
  'INTERCEPT_NAMES',
  'InterceptChain',
  'LineDecoder',
  'MANIFEST_FILE',
  'MAX_SYSTEM_PROMPT_BYTES',
  'ManifestDiscovery',
  'NOTIFY_LEVELS',
  'PANEL_KEYS',
  'PROTOCOL_VERSION',
  'VERSION',
  'encodeFrame',
  'homeEnvVar',
  'isExtensionHostError',
  'isSpawnable',
  'nameProblem',
  'resolveHome',
  'toAnthropicToolResult',
  'toAnthropicTools',
  'toOpenAIToolResult',
  'toOpenAITools',
];

describe('public API', () => {
  it('the root entry exports exactly the curated names', () => {
    expect(Object.keys(root).sort()).toEqual(ROOT_EXPORTS);
  });

  it('the sdk and testing entries export only their own API', () => {
    expect(Object.keys(sdk).sort()).toEqual(['ExtensionSdkError', 'SdkErrorCode', 'defineExtension', 'display', 'image', 'insert', 'markdown', 'noop', 'openPanel', 'prompt', 'text', 'toolError', 'toolPrompt']);
    expect(Object.keys(testing).sort()).toEqual(['TestHost', 'createTestHost']);
    expect(Object.keys(schemas).sort()).toEqual(['ExtensionFrame', 'HostFrame', 'Manifest', 'decodeExtensionFrame']);
  });

  it('VERSION matches package.json', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(root.VERSION).toBe(pkg.version);
  });

  it('the built package works through require() and import, with the same names', async () => {
    const require = createRequire(import.meta.url);
    const cjs = require(path.join(ROOT, 'dist/index.cjs')) as Record<string, unknown>;
    const esm = (await import(path.join(ROOT, 'dist/index.js'))) as Record<string, unknown>;
    expect(Object.keys(cjs).sort()).toEqual(ROOT_EXPORTS);
    expect(Object.keys(esm).sort()).toEqual(ROOT_EXPORTS);
    expect(typeof cjs.ExtensionHost).toBe('function');
    const cjsSdk = require(path.join(ROOT, 'dist/sdk.cjs')) as Record<string, unknown>;
    expect(typeof cjsSdk.defineExtension).toBe('function');
    const cjsTesting = require(path.join(ROOT, 'dist/testing.cjs')) as Record<string, unknown>;
    expect(typeof cjsTesting.createTestHost).toBe('function');
    const cjsSchemas = require(path.join(ROOT, 'dist/schemas.cjs')) as Record<string, unknown>;
    expect(Object.keys(cjsSchemas).sort()).toEqual(['ExtensionFrame', 'HostFrame', 'Manifest', 'decodeExtensionFrame']);
  });
});
