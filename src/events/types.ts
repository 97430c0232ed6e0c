import { randomUUID } from "node:crypto";
import type { NetworkName } from "../config/schema.ts";

/**
 * A change of a network's best chain, as the gateway announces it: a block connected on top, or
 * a block taken off by a reorganisation (announced before the blocks that replace it, from the
 * old tip down). `id` names the announcement the same in every process (for deduplication).
 */
export interface ChainEvent {
  id: string;
  network: NetworkName;
  kind: "connected" | "disconnected";
  height: number;
  hash: string;
  previousHash: string | null;
  /** The header's time (Unix seconds). */
  time: number;
}

/**
 * A new id per announcement: the same block connected again after a reorganisation undid it is a
 * new event, and a process that hears one announcement twice (its own NOTIFY) drops the repeat.
 */
export function chainEventId(): string {
  return randomUUID();
}
