// The public types of zot's additions (issue 30): emit() typed per event, tool metadata, results.
import { describe, expectTypeOf, it } from 'vitest';
import type { EmittedEvent, ExtensionHost, LifecycleEvent, NoteView, ToolContent, ToolExposure, ToolInfo, ToolReplay, ToolResult } from '../../src/index.js';

declare const host: ExtensionHost;

describe("zot's additions, typed", () => {
  it('emit() takes each lifecycle event with its fields, zot fields optional, and any custom event', () => {
    expectTypeOf<LifecycleEvent<'session_end'>>().toEqualTypeOf<{ event: 'session_end'; reason: string; session_id?: string | undefined; cwd?: string | undefined; sequence?: number | undefined }>();
    expectTypeOf<LifecycleEvent<'post_compact'>['error']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<LifecycleEvent<'tool_result'>['result']>().toEqualTypeOf<{ content: Record<string, unknown>[]; is_error: boolean; truncated?: boolean | undefined }>();
    expectTypeOf(host.emit({ event: 'session_end', reason: 'shutdown', sequence: 3 })).toEqualTypeOf<number>();
    expectTypeOf(host.emit({ event: 'my_event', anything: [1] })).toEqualTypeOf<number>();
    // @ts-expect-error session_end needs its reason
    host.emit({ event: 'session_end' });
    // @ts-expect-error sequence is a number
    host.emit({ event: 'turn_start', step: 1, sequence: '1' });
    expectTypeOf<{ event: 'custom'; anything: number }>().toMatchTypeOf<EmittedEvent<'custom'>>();
  });

  it('tool metadata, structured content, text format, raw notify level', () => {
    expectTypeOf<ToolInfo['exposure']>().toEqualTypeOf<ToolExposure | undefined>();
    expectTypeOf<ToolExposure>().toEqualTypeOf<'direct' | 'codemode' | 'deferred' | 'model-only'>();
    expectTypeOf<ToolInfo['replay']>().toEqualTypeOf<ToolReplay | undefined>();
    expectTypeOf<ToolInfo['namespace']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ToolInfo['outputSchema']>().toEqualTypeOf<unknown>();
    expectTypeOf<ToolResult['structuredContent']>().toEqualTypeOf<unknown>();
    expectTypeOf<Extract<ToolContent, { type: 'text' }>['format']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<NoteView['rawLevel']>().toEqualTypeOf<string | undefined>();
  });
});
