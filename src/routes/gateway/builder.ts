import SchemaBuilder from "@pothos/core";
import type { GraphQLContext } from "./context.ts";

/** Price-list annotation on a field: what one resolution costs, and how many an argument asks for. */
export interface FieldCost {
  /** Price-list method (config `pricing` key) charged per item. */
  method: string;
  /** When an argument picks the upstream: its name and the price-list method per value. */
  methodByArg?: { arg: string; methods: Record<string, string> };
  /** Argument holding a list whose length is the item count; absent means one item. */
  listArg?: string;
  /** Argument holding the item count itself (a page's `limit`), and the count when left out. */
  countArg?: { arg: string; default: number };
  /** A second call made when an argument is given (a block by height asks its hash first). */
  alsoWhenArg?: { arg: string; method: string };
  /**
   * A scan whose look-ups are counted only as it runs (a descriptor's addresses): reserved as
   * graphql.descriptorAddressesMax of `method`, and the fields under it as many times; refused
   * before anything runs when `gapArg` addresses on each branch of `descriptorArg` cannot fit.
   */
  scan?: { gapArg: string; descriptorArg: string };
}

/**
 * A field whose children resolve once per item it stands for — an address of `addresses(list:)`,
 * an entry of a page — so that the calls under it are priced that many times; its own call, if
 * it has one (FieldCost), is priced once.
 */
export interface FieldFanOut {
  /** Argument holding a list: one item per element. */
  listArg?: string;
  /** Arguments holding the count (a page's `first`, or its older `limit`), the first given wins. */
  countArgs?: string[];
  /** The count when none is given. */
  default: number;
}

/**
 * A field resolved by delegating to the indexer (graph backend): which of its root fields it
 * becomes. Every resolution of such a field is one indexer query, priced by its complexity.
 */
export interface IndexerSite {
  rootField: "block" | "block_by_pk";
}

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    TxId: { Input: string; Output: string };
    BlockHash: { Input: string; Output: string };
    Hex: { Input: string; Output: string };
    Satoshis: { Input: bigint; Output: bigint };
    BtcAmount: { Input: string; Output: string };
    DateTime: { Input: Date; Output: Date };
    UInt32: { Input: number; Output: number };
    Credits: { Input: number; Output: number };
  };
}>({
  // Fields are non-null unless they say otherwise: the schema tells clients what may be missing.
  defaultFieldNullability: false,
});

builder.queryType({});

/** The builder's schema types, for helpers that build Pothos types generically. */
export type BuilderTypes =
  typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
