import { describe, expectTypeOf, it } from 'vitest';
import { ErrorCode, ExtensionHost, type ExtensionHostOptions, type ExtensionInfo, type ExtensionState, type HostEvents, type RestartPolicy } from '../../src/index.js';

describe('restart types', () => {
  it('restart option: a policy or a boolean, fields optional and undefined-able', () => {
    expectTypeOf<ExtensionHostOptions['restart']>().toEqualTypeOf<RestartPolicy | boolean | undefined>();
    expectTypeOf<RestartPolicy>().toEqualTypeOf<{ maxRestarts?: number | undefined; windowMs?: number | undefined; backoffMs?: readonly number[] | undefined; jitter?: number | undefined }>();
    const options: ExtensionHostOptions[] = [{ restart: true }, { restart: { maxRestarts: 3, windowMs: 180_000, backoffMs: [250, 1000, 4000], jitter: undefined } }];
    void options;
    // @ts-expect-error backoffMs is an array of ms
    const wrong: RestartPolicy = { backoffMs: 250 };
    void wrong;
  });

  it('host.restart, the restart count and the state event', () => {
    const host = new ExtensionHost({});
    expectTypeOf(host.restart).parameters.toEqualTypeOf<[name: string]>();
    expectTypeOf(host.restart).returns.toEqualTypeOf<Promise<ExtensionInfo>>();
    expectTypeOf<ExtensionInfo['restarts']>().toEqualTypeOf<number>();
    expectTypeOf<HostEvents['extension:state'][0]>().toEqualTypeOf<{ name: string; state: ExtensionState; previous: ExtensionState | undefined; reason?: string | undefined; restarts?: number | undefined }>();
  });

  it('the restarting state and the RESTARTING code', () => {
    expectTypeOf<ExtensionState>().toEqualTypeOf<'starting' | 'ready' | 'restarting' | 'failed' | 'exited' | 'stopped'>();
    expectTypeOf(ErrorCode.RESTARTING).toEqualTypeOf<'RESTARTING'>();
  });
});
