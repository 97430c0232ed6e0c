/** A ledger operation failed (database down, constraint refused): the call is not answered. */
export class LedgerError extends Error {
  constructor(operation: string, cause: unknown) {
    super(`ledger ${operation} failed: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = "LedgerError";
  }
}

export async function guarded<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw err instanceof LedgerError ? err : new LedgerError(operation, err);
  }
}
