import type { DevnetChain } from "../chain.ts";
import type { Row, SelectArgs } from "./bool-exp.ts";
import { select } from "./bool-exp.ts";

/** A row of `block_transaction`. */
export interface TransactionRow extends Row {
  hash: string;
  size_bytes: number;
  input_count: number;
  output_count: number;
}

/** A row of `block`; `transactions` is the array relationship, resolved with its arguments. */
export interface BlockRow extends Row {
  hash: string;
  height: number;
  timestamp: number;
  transaction_count: number;
  size_bytes: number;
  transactions: (args: SelectArgs) => TransactionRow[];
}

/**
 * devnet's indexer tables over the chain: one `block` row per held block, in height order (the
 * order a query without `order_by` gets), and its `block_transaction` rows in block order.
 * Transaction rows are built the first time a block's transactions are asked for.
 */
export class IndexerTables {
  readonly blocks: BlockRow[];
  readonly byHash = new Map<string, BlockRow>();
  private readonly txRows = new Map<string, TransactionRow[]>();

  constructor(private readonly chain: DevnetChain) {
    this.blocks = chain.heights().map((height) => {
      const { block } = chain.byHeight.get(height)!;
      const row: BlockRow = {
        hash: block.hash,
        height,
        timestamp: block.time,
        transaction_count: block.transactions.length,
        size_bytes: block.size,
        transactions: (args) => select(this.transactionsOf(row), args),
      };
      this.byHash.set(block.hash, row);
      return row;
    });
  }

  transactionsOf(row: BlockRow): TransactionRow[] {
    let rows = this.txRows.get(row.hash);
    if (!rows) {
      rows = this.chain.byHash.get(row.hash)!.block.transactions.map((tx) => ({
        hash: tx.txid,
        size_bytes: tx.size,
        input_count: tx.inputs.length,
        output_count: tx.outputs.length,
      }));
      this.txRows.set(row.hash, rows);
    }
    return rows;
  }

  selectBlocks(args: SelectArgs): BlockRow[] {
    return select(this.blocks, args, {
      transactions: (row) => this.transactionsOf(row as BlockRow),
    });
  }

  blockByPk(hash: string): BlockRow | null {
    return this.byHash.get(hash) ?? null;
  }
}
