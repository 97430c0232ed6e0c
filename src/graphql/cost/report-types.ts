// The shapes of `extensions.cost` (report.ts), apart: the request state names them, and
// report.ts reads the request's context.

/** One line of `extensions.cost.calls`: a priced method's calls, or the indexer's share. */
export interface CostLine {
  method: string;
  count: number;
  unitPrice?: number;
  subtotal: number;
}

/** `extensions.cost` of an executed request, its keys in the order clients have always seen. */
export interface CostReport {
  estimated: number;
  actual: number;
  charged: number;
  balance: number;
  complexity?: number;
  calls: CostLine[];
}
