import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";
import { parseRange, RANGE_HINT } from "../util/address-range.ts";

/**
 * Where a webhook may be sent: public addresses only, unless the operator allowed a block
 * (`webhooks.allowTargets`). Checked when an endpoint is registered and again on every connection
 * (the guarded DNS lookup below), so a name that later resolves to an internal address — DNS
 * rebinding — is refused at delivery too.
 */

/** Ranges that are not the public Internet (IANA special-purpose registries, RFC 6890 and on). */
const NOT_PUBLIC: readonly [string, number, "ipv4" | "ipv6"][] = [
  ["0.0.0.0", 8, "ipv4"], // "this network"
  ["10.0.0.0", 8, "ipv4"], // private
  ["100.64.0.0", 10, "ipv4"], // carrier-grade NAT
  ["127.0.0.0", 8, "ipv4"], // loopback
  ["169.254.0.0", 16, "ipv4"], // link-local (cloud metadata services live here)
  ["172.16.0.0", 12, "ipv4"], // private
  ["192.0.0.0", 24, "ipv4"], // IETF protocol assignments
  ["192.0.2.0", 24, "ipv4"], // documentation
  ["192.88.99.0", 24, "ipv4"], // 6to4 relay anycast
  ["192.168.0.0", 16, "ipv4"], // private
  ["198.18.0.0", 15, "ipv4"], // benchmarking
  ["198.51.100.0", 24, "ipv4"], // documentation
  ["203.0.113.0", 24, "ipv4"], // documentation
  ["224.0.0.0", 4, "ipv4"], // multicast
  ["240.0.0.0", 4, "ipv4"], // reserved, broadcast
  ["::", 128, "ipv6"], // unspecified
  ["::1", 128, "ipv6"], // loopback
  ["64:ff9b:1::", 48, "ipv6"], // local-use NAT64
  ["100::", 64, "ipv6"], // discard-only
  ["2001::", 23, "ipv6"], // IETF protocol assignments
  ["2001:db8::", 32, "ipv6"], // documentation
  ["2002::", 16, "ipv6"], // 6to4: an IPv4 address inside
  ["fc00::", 7, "ipv6"], // unique local
  ["fe80::", 10, "ipv6"], // link-local
  ["fec0::", 10, "ipv6"], // site-local (deprecated)
  ["ff00::", 8, "ipv6"], // multicast
];

const notPublic = new BlockList();
for (const [address, prefix, type] of NOT_PUBLIC) notPublic.addSubnet(address, prefix, type);

/** The IPv4 address an IPv6 one carries (IPv4-mapped ::ffff:a.b.c.d, or NAT64 64:ff9b::/96). */
function embeddedIPv4(address: string): string | null {
  const m = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (m) return m[1]!;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return null;
  const hi = Number.parseInt(hex[1]!, 16);
  const lo = Number.parseInt(hex[2]!, 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
}

export class TargetPolicy {
  private readonly allowed = new BlockList();

  /** `allow`: CIDR blocks (or single addresses) a target may resolve to although not public. */
  constructor(allow: readonly string[]) {
    for (const entry of allow) {
      const range = parseRange(entry);
      if (!range) throw new Error(`webhooks.allowTargets: "${entry}": ${RANGE_HINT}`);
      this.allowed.addSubnet(range.address, range.prefix, range.family);
    }
  }

  /** Why a connection to `address` (an IP literal) is refused, or null when it may go. */
  refusal(address: string): string | null {
    const type = isIP(address);
    if (type === 0) return `"${address}" is not an IP address`;
    const family = type === 4 ? "ipv4" : "ipv6";
    if (this.allowed.check(address, family)) return null;
    const inner = type === 6 ? embeddedIPv4(address) : null;
    if (inner !== null && this.allowed.check(inner, "ipv4")) return null;
    if (notPublic.check(address, family) || (inner !== null && notPublic.check(inner, "ipv4"))) {
      return `${address} is not a public address (private, loopback, link-local or reserved); an operator may allow it with the setting webhooks.allowTargets`;
    }
    return null;
  }

  /**
   * A DNS lookup for sockets (net.connect's `lookup`) that fails, rather than connect, when a
   * name resolves to any address this policy refuses: the check made where the address is used.
   */
  readonly lookup = (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: (
      err: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void,
  ): void => {
    dnsLookup(
      hostname,
      { all: true, family: Number(options.family ?? 0) as 0 | 4 | 6 },
      (err, found) => {
        if (err) return callback(err, []);
        const refused = found.map((a) => this.refusal(a.address)).find((r) => r !== null);
        if (refused) {
          const error: NodeJS.ErrnoException = new Error(`${hostname}: ${refused}`);
          error.code = "EWEBHOOKTARGET";
          return callback(error, []);
        }
        if (options.all) return callback(null, found);
        const first = found[0]!;
        callback(null, first.address, first.family);
      },
    );
  };

  /**
   * Why a connection to `url`'s host is refused when that host is an IP address (no lookup runs
   * for one, so the guarded lookup never sees it); null for a name or an allowed address.
   */
  literalRefusal(url: URL): string | null {
    const host = hostOf(url);
    return isIP(host) === 0 ? null : this.refusal(host);
  }

  /**
   * Why `raw` cannot be a webhook's URL, or null: http(s) only, no credentials in it, and every
   * address its host resolves to (now) allowed. Resolving here tells the account at once; the
   * guarded lookup checks again at each delivery.
   */
  async check(raw: string): Promise<string | null> {
    if (raw.length > 2000) return "url: at most 2,000 characters";
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return "url: not a URL";
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") return "url: http or https only";
    if (url.username || url.password) return "url: no credentials in the URL";
    const host = hostOf(url);
    if (isIP(host) !== 0) {
      const refused = this.refusal(host);
      return refused ? `url: ${refused}` : null;
    }
    return new Promise((resolve) => {
      this.lookup(host, { all: true }, (err) => {
        if (!err) resolve(null);
        else if (err.code === "EWEBHOOKTARGET") resolve(`url: ${err.message}`);
        else resolve(`url: ${host} does not resolve (${err.code ?? err.message})`);
      });
    });
  }
}

/** A URL's host as an address or name: an IPv6 literal without its brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}
