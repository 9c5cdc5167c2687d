import { describe, expectTypeOf, it } from 'vitest';
import type { DiscoveredExtension, ExtensionHostOptions, ExtensionInfo, KeepAliveOptions, Manifest, RemoteOptions } from '../../src/index.js';

describe('remote extension types', () => {
  it('keepAlive is an optional host option of two optional numbers', () => {
    expectTypeOf<ExtensionHostOptions['keepAlive']>().toEqualTypeOf<KeepAliveOptions | undefined>();
    expectTypeOf<RemoteOptions['keepAlive']>().toEqualTypeOf<KeepAliveOptions | undefined>();
    expectTypeOf<KeepAliveOptions['intervalMs']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<KeepAliveOptions['timeoutMs']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<{ keepAlive: { intervalMs: 5000 } }>().toMatchTypeOf<ExtensionHostOptions>();
  });

  it('extensions() names the headers of a remote extension, never their values', () => {
    expectTypeOf<ExtensionInfo['headers']>().toEqualTypeOf<{ name: string; variable: string | undefined }[] | undefined>();
  });

  it('extensions() shows a url; a manifest has url and headers', () => {
    expectTypeOf<ExtensionInfo['url']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Manifest['url']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Manifest['headers']>().toEqualTypeOf<Record<string, string> | undefined>();
    expectTypeOf<DiscoveredExtension['manifest']['url']>().toEqualTypeOf<string | undefined>();
  });
});
