import { priceOf } from "../../billing/pricing/prices.ts";
import type { Config, NetworkName } from "../../config/schema.ts";
import { CATALOGUE, type CatalogueMethod } from "./methods.ts";

/** One method with its prices on each network asked for: what the page and docs/users/methods.md show. */
export interface PricedMethod extends CatalogueMethod {
  /** CC per call per network; a priced form's prices under `<method>/<variant>`. */
  prices: Record<string, Partial<Record<NetworkName, number>>>;
}

export function pricedCatalogue(config: Config, networks: readonly NetworkName[]): PricedMethod[] {
  return CATALOGUE.map((m) => {
    const keys = [m.method, ...(m.variants ?? []).map((v) => `${m.method}/${v.variant}`)];
    const prices: PricedMethod["prices"] = {};
    for (const key of keys) {
      prices[key] = Object.fromEntries(networks.map((n) => [n, priceOf(config, key, n)]));
    }
    return { ...m, prices };
  });
}

/** A method's parameters as Core's help writes a call: optional ones in parentheses. */
export function signature(m: CatalogueMethod): string {
  const required = m.params.filter((p) => !p.optional).map((p) => p.name);
  const optional = m.params.filter((p) => p.optional).map((p) => p.name);
  return [m.method, ...required, ...(optional.length ? [`( ${optional.join(" ")} )`] : [])].join(
    " ",
  );
}

/** The example as a JSON-RPC 2.0 body. */
export function exampleBody(m: CatalogueMethod): string {
  return JSON.stringify({ jsonrpc: "2.0", id: 1, method: m.method, params: m.example });
}

/** A transaction's hex is too long for a table cell: its start stands for it (the page has it all). */
function shortened(_key: string, value: unknown): unknown {
  return typeof value === "string" && value.length > 80 ? `${value.slice(0, 24)}…` : value;
}

/** A price cell: the method's price, then each priced form's. */
function priceText(m: PricedMethod, network: NetworkName): string {
  return Object.entries(m.prices)
    .map(([key, byNetwork]) => {
      const variant = m.variants?.find((v) => `${m.method}/${v.variant}` === key);
      return variant ? `${byNetwork[network]} (${variant.when})` : String(byNetwork[network]);
    })
    .join(", ");
}

/**
 * The catalogue table of docs/users/methods.md at the default prices: Core's methods, Electrum's,
 * then Esplora's endpoints, each with its parameters (an endpoint's path), its price on mainnet and
 * on the other networks, and an example's parameters (an endpoint's path).
 */
export function catalogueTable(config: Config): string {
  const rows = pricedCatalogue(config, ["mainnet", "testnet"]).map((m) => {
    const params = m.rest
      ? `${m.rest.verb} ${m.rest.path}`
      : m.params.map((p) => `${p.optional ? `[${p.name}]` : p.name}: ${p.type}`).join(", ");
    const cells = [
      m.backend,
      `\`${m.method}\``,
      m.summary,
      params || "—",
      priceText(m, "mainnet"),
      priceText(m, "testnet"),
      m.rest
        ? `\`${m.rest.verb} ${m.rest.example}\``
        : `\`${JSON.stringify(m.example, shortened)}\``,
      m.verified ?? "—",
    ];
    return `| ${cells.map((c) => c.replaceAll("|", "\\|")).join(" | ")} |`;
  });
  return [
    "| route | method | what it answers | parameters | CC mainnet | CC other networks | example params | checked before it is served |",
    "|---|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}

const START = "<!-- method-catalogue:start -->";
const END = "<!-- method-catalogue:end -->";

export function withCatalogueTable(readme: string, config: Config): string {
  const from = readme.indexOf(START);
  const to = readme.indexOf(END);
  if (from < 0 || to < from) throw new Error(`the page lacks the markers ${START} … ${END}`);
  return `${readme.slice(0, from + START.length)}\n${catalogueTable(config)}\n${readme.slice(to)}`;
}
