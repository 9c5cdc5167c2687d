import { expectTypeOf, test } from 'vitest';
import {
  ManifestDiscovery,
  resolveHome,
  type DiagnosticCode,
  type DiscoveredExtension,
  type DiscoveryResult,
  type Manifest,
  type ManifestDiscoveryOptions,
} from '../../src/manifest/index.js';

test('options accept explicit undefined (exactOptionalPropertyTypes users)', () => {
  expectTypeOf<{
    cwd: string;
    appName: undefined;
    home: undefined;
    explicit: undefined;
    discover: undefined;
    env: undefined;
    platform: undefined;
    homedir: undefined;
    checkExec: undefined;
  }>().toExtend<ManifestDiscoveryOptions>();
  expectTypeOf(resolveHome).parameter(0).toExtend<{ appName?: string | undefined } | undefined>();
});

test('discover() resolves a typed result', () => {
  const discovery = new ManifestDiscovery({ cwd: '/p' });
  expectTypeOf(discovery.discover()).resolves.toEqualTypeOf<DiscoveryResult>();
  expectTypeOf(discovery.home).toEqualTypeOf<string>();
  expectTypeOf<DiscoveredExtension['source']>().toEqualTypeOf<'explicit' | 'project' | 'global'>();
  expectTypeOf<DiscoveredExtension['kind']>().toEqualTypeOf<'process' | 'skills' | 'theme'>();
  expectTypeOf<DiscoveryResult['diagnostics'][number]['code']>().toEqualTypeOf<DiagnosticCode>();
});

test('the manifest keeps its known fields typed and unknown ones as unknown', () => {
  expectTypeOf<Manifest['name']>().toEqualTypeOf<string>();
  expectTypeOf<Manifest['enabled']>().toEqualTypeOf<boolean>();
  expectTypeOf<Manifest['args']>().toEqualTypeOf<string[] | undefined>();
  expectTypeOf<Manifest['whatever']>().toEqualTypeOf<unknown>();
});
