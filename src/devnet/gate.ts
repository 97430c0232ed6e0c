/**
 * A test's way to make one of devnet's upstreams slow without sleeping: `hold()` closes the
 * gate and returns the function that opens it again; requests read meanwhile wait at `passed()`.
 */
export class Gate {
  private closed: Promise<void> | null = null;

  hold(): () => void {
    let open!: () => void;
    this.closed = new Promise<void>((resolve) => {
      open = resolve;
    });
    return () => {
      this.closed = null;
      open();
    };
  }

  /** Resolves at once while the gate is open, else when it opens. */
  async passed(): Promise<void> {
    if (this.closed) await this.closed;
  }
}
