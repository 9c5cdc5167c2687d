// The handshake's wait for `hello`: settled once, by the hello frame or by the first failure.
import type { ExtensionHostError } from '../errors.js';
import type { HelloFrame } from '../protocol/frames.js';

export class HelloWait {
  readonly result: Promise<HelloFrame>;
  private settle: { resolve: (frame: HelloFrame) => void; reject: (error: ExtensionHostError) => void } | undefined;

  constructor() {
    this.result = new Promise<HelloFrame>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    // Consumed by the handshake; a failure before it is awaited must not go unhandled.
    this.result.catch(() => undefined);
  }

  /** Nothing settled it yet. */
  get waiting(): boolean {
    return this.settle !== undefined;
  }

  /** Ends the wait; returns how to reject it (now or later), or undefined when it was over already. */
  end(): ((error: ExtensionHostError) => void) | undefined {
    const settle = this.settle;
    this.settle = undefined;
    return settle?.reject;
  }

  accept(frame: HelloFrame): void {
    const settle = this.settle;
    this.settle = undefined;
    settle?.resolve(frame);
  }
}
