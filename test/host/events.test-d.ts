import { describe, expectTypeOf, it } from 'vitest';
import type { EventName, ExtensionHost, HostEvents, KnownLifecycleEvent, LifecycleEvent } from '../../src/index.js';

declare const host: ExtensionHost;

describe('lifecycle events are typed from the event frames', () => {
  it('a known event takes exactly its fields, in sendEvent and in emit({ event })', () => {
    host.sendEvent({ event: 'turn_start', step: 1 });
    host.sendEvent({ event: 'session_start' });
    host.sendEvent({ event: 'tool_call', tool_id: 't1', tool_name: 'bash', tool_args: { command: 'ls' } });
    host.emit({ event: 'turn_end', stop: 'end_turn' });
    // @ts-expect-error step is a number
    host.sendEvent({ event: 'turn_start', step: 'one' });
    // @ts-expect-error step is a number
    host.emit({ event: 'turn_start', step: 'one' });
    // @ts-expect-error turn_start needs step
    host.sendEvent({ event: 'turn_start' });
    // @ts-expect-error tool_call needs tool_name and tool_args
    host.emit({ event: 'tool_call', tool_id: 'x' });
    expectTypeOf(host.sendEvent({ event: 'assistant_message', text: 'hi' })).toEqualTypeOf<number>();
    expectTypeOf(host.emit({ event: 'assistant_message', text: 'hi' })).toEqualTypeOf<number>();
  });

  it('any other name is a custom event whose fields pass through', () => {
    host.sendEvent({ event: 'my_agent_event', anything: [1, 'x'] });
    expectTypeOf<LifecycleEvent<'my_agent_event'>>().toEqualTypeOf<{ event: 'my_agent_event'; [field: string]: unknown }>();
  });

  it('each name of EVENT_NAMES has its member, with the wire field names', () => {
    expectTypeOf<KnownLifecycleEvent['event']>().toEqualTypeOf<EventName>();
    // zot's session_id, cwd and sequence are optional on every event (the host fills them).
    expectTypeOf<{ event: 'turn_start'; step: number }>().toMatchTypeOf<LifecycleEvent<'turn_start'>>();
    expectTypeOf<LifecycleEvent<'turn_start'>['step']>().toEqualTypeOf<number>();
    expectTypeOf<LifecycleEvent<'turn_start'>['sequence']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<{ event: 'turn_end'; stop: string }>().toMatchTypeOf<Extract<KnownLifecycleEvent, { event: 'turn_end' }>>();
  });

  it("emit(name, ...) is for host events only: a lifecycle event name does not compile", () => {
    // emit(name) tells host events and lifecycle events apart by name: no name is both.
    expectTypeOf<Extract<EventName, keyof HostEvents>>().toBeNever();
    expectTypeOf(host.emit('warning', { message: 'x' })).toEqualTypeOf<boolean>();
    // @ts-expect-error turn_start is a lifecycle event: host.sendEvent({ event: 'turn_start', step })
    host.emit('turn_start', { step: 1 });
  });
});
