import { DescriptorRefusal, parseDescriptor } from "../../bitcoin/output-descriptor.ts";
import type { TopupsConfig } from "../../config/schema.ts";

/** An invoice's address: derived from the descriptor at its index. */
export interface InvoiceAddress {
  address: string;
  scriptHex: string;
}

/** Derives invoice addresses from the configured watch-only descriptor. */
export interface AddressDeriver {
  /** What the derivation counter is keyed by: network and descriptor as configured. */
  readonly key: string;
  at(index: number): InvoiceAddress;
}

/**
 * Checks `billing.topups.descriptor` (at boot: a refusal names the config path) and derives its
 * addresses. A multipath descriptor (`<0;1>`) pays to its first branch, the receive one.
 */
export function addressDeriver(config: TopupsConfig): AddressDeriver {
  let parsed: ReturnType<typeof parseDescriptor>;
  try {
    parsed = parseDescriptor(config.descriptor, config.network);
  } catch (err) {
    if (err instanceof DescriptorRefusal) {
      throw new Error(`billing.topups.descriptor: ${err.message}`);
    }
    throw err;
  }
  if (!parsed.ranged) {
    throw new Error(
      "billing.topups.descriptor: must be ranged (end in /*) so that each invoice gets an address of its own",
    );
  }
  const branch = parsed.branches[0] ?? null;
  return {
    key: `${config.network}:${config.descriptor}`,
    at(index) {
      const derived = parsed.at(branch, index);
      return {
        address: derived.address,
        scriptHex: Buffer.from(derived.scriptPubKey).toString("hex"),
      };
    },
  };
}
