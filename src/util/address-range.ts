import { isIP } from "node:net";

/** An address (v4 or v6) or a CIDR range, parsed: what token scopes and webhook allowances name. */
export interface AddressRange {
  address: string;
  prefix: number;
  family: "ipv4" | "ipv6";
}

/** The range `value` names (a single address is its own /32 or /128), or null when it is not one. */
export function parseRange(value: string): AddressRange | null {
  const [address = "", prefixText, ...rest] = value.split("/");
  if (rest.length > 0) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const max = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return null;
  return { address, prefix, family: version === 4 ? "ipv4" : "ipv6" };
}

export const RANGE_HINT =
  "an address range is an IPv4 or IPv6 address, or a CIDR range such as 10.0.0.0/8";
