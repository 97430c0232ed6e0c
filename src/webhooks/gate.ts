/**
 * Where a batch's deliveries wait for each other once sent, so that their settles reach the settle
 * queue in one turn of the event loop and go in one statement (the batch is recorded together
 * anyway, once its last POST is answered). Each member arrives once.
 */
export class Gate {
  private left: number;
  private open: () => void = () => {};
  private readonly opened: Promise<void>;

  constructor(members: number) {
    this.left = members;
    this.opened = new Promise<void>((resolve) => {
      this.open = resolve;
    });
    if (members <= 0) this.open();
  }

  /** One member is through; resolves once every member is. */
  arrive(): Promise<void> {
    this.left -= 1;
    if (this.left <= 0) this.open();
    return this.opened;
  }
}

/**
 * At most `size` holders at once. The others wait their turn in the order of their `rank`, then of
 * their asking: an earlier batch's POSTs go before a later one's, so that batches worked at once
 * finish one after another (each then writing its statements while the next one's POSTs are
 * under way) rather than all together, with the slots idle while they write.
 */
export class Slots {
  private held = 0;
  private readonly waiting: { rank: number; go: () => void }[] = [];

  constructor(private readonly size: number) {}

  async run<T>(rank: number, fn: () => Promise<T>): Promise<T> {
    if (this.held >= this.size) {
      await new Promise<void>((go) => {
        let at = this.waiting.length;
        while (at > 0 && (this.waiting[at - 1] as { rank: number }).rank > rank) at--;
        this.waiting.splice(at, 0, { rank, go });
      });
    } else {
      this.held += 1;
    }
    try {
      return await fn();
    } finally {
      // The slot passes straight to the next in line, or is freed.
      const next = this.waiting.shift();
      if (next) next.go();
      else this.held -= 1;
    }
  }
}
