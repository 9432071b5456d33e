/**
 * Keeps a live session's output in the order things happened, though a turn's end line can only
 * be shown once its record is saved, and by then the next prompt (typed ahead) may already be
 * running. What comes while an earlier end line is not shown yet (the next turns' events, a
 * rule's decision line) waits behind it; each end line takes its own place in the queue, so
 * several turns ending before the first is saved still come out turn by turn.
 */
interface Item {
  ready: boolean;
  run: () => void;
}

export class OutputOrder {
  private readonly items: Item[] = [];
  private drainedWaiters: Array<() => void> = [];

  /** Show now, or after everything already waiting. */
  show(run: () => void): void {
    if (this.items.length === 0) run();
    else this.items.push({ ready: true, run });
  }

  /** What follows waits until `until` settles; then `then` (an end line) runs in its place. */
  after<T>(until: Promise<T>, then: (value: T | null) => void): void {
    const item: Item = { ready: false, run: () => undefined };
    this.items.push(item);
    const settle = (value: T | null) => {
      item.run = () => then(value);
      item.ready = true;
      this.flush();
    };
    until.then(settle, () => settle(null));
  }

  /** Everything waiting has been shown. */
  drained(): Promise<void> {
    if (this.items.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainedWaiters.push(resolve));
  }

  private flush(): void {
    while (this.items[0]?.ready) this.items.shift()!.run();
    if (this.items.length > 0) return;
    const waiters = this.drainedWaiters;
    this.drainedWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
