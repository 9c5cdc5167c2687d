/** Runs tasks one after another per key (panel keys of one panel stay in order); keys are independent. */
export class KeyedSerialQueue {
  private readonly tails = new Map<string, Promise<void>>();

  /** `task` must not reject; it starts once every earlier task with the same key has settled. */
  run(key: string, task: () => Promise<void>): Promise<void> {
    const tail = (this.tails.get(key) ?? Promise.resolve()).then(task);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return tail;
  }
}
