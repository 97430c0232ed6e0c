import { z } from "zod";
import { configSchema, NETWORK_NAMES } from "./schema.ts";

/** One setting as the schema defines it: where it sits, what it takes, its default and limits. */
export interface Setting {
  /** `server.port`, `upstreams.node.<network>[].url`: arrays as `[]`, network keys as `<network>`. */
  path: string;
  type: string;
  /** YAML flow text of the default, or undefined when the setting has none. */
  default: string | undefined;
  /** Bounds as text (`1 – 300000`, `≥ 0`), or undefined when unbounded. */
  limit: string | undefined;
  min: number | undefined;
  max: number | undefined;
}

type Check = z.core.$ZodCheck;
type Bound = { value: number; inclusive: boolean };

function checksOf(schema: z.ZodType): Check[] {
  return (schema._zod.def as { checks?: Check[] }).checks ?? [];
}

function checkDef<T>(check: Check, name: string): T | undefined {
  const def = check._zod.def as { check: string };
  return def.check === name ? (def as T) : undefined;
}

/** YAML flow text: what an operator would write in the file. */
function flow(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(flow).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    return `{ ${Object.entries(value)
      .map(([k, v]) => `${k}: ${flow(v)}`)
      .join(", ")} }`;
  }
  return String(value);
}

function numberBounds(schema: z.ZodType): {
  type: string;
  min: number | undefined;
  max: number | undefined;
  limit: string | undefined;
} {
  let integer = false;
  let low: Bound | undefined;
  let high: Bound | undefined;
  for (const check of checksOf(schema)) {
    const format = checkDef<{ format: string }>(check, "number_format");
    if (format?.format === "safeint" || format?.format === "int32") integer = true;
    low = checkDef<Bound>(check, "greater_than") ?? low;
    high = checkDef<Bound>(check, "less_than") ?? high;
  }
  // For integers an exclusive bound is the next integer, which is what an operator writes.
  const min = low === undefined ? undefined : low.inclusive || !integer ? low.value : low.value + 1;
  const max =
    high === undefined ? undefined : high.inclusive || !integer ? high.value : high.value - 1;
  const lowText = low === undefined ? "" : !low.inclusive && !integer ? `> ${min}` : `≥ ${min}`;
  const highText = high === undefined ? "" : !high.inclusive && !integer ? `< ${max}` : `≤ ${max}`;
  let limit: string | undefined;
  if (lowText && highText && lowText.startsWith("≥") && highText.startsWith("≤")) {
    limit = `${min} – ${max}`;
  } else if (lowText || highText) {
    limit = [lowText, highText].filter(Boolean).join(", ");
  }
  return { type: integer ? "integer" : "number", min, max, limit };
}

function stringType(schema: z.ZodType): { type: string; limit: string | undefined } {
  const def = schema._zod.def as { format?: string; protocol?: RegExp };
  if (def.format === "url") {
    const protocols = def.protocol?.source === "^https?$" ? "http or https" : "any scheme";
    return { type: `URL (${protocols})`, limit: undefined };
  }
  const parts: string[] = [];
  for (const check of checksOf(schema)) {
    const regex = checkDef<{ pattern: RegExp }>(check, "string_format");
    if (regex?.pattern) parts.push(`matches \`${regex.pattern.source}\``);
    const min = checkDef<{ minimum: number }>(check, "min_length");
    if (min) parts.push(`at least ${min.minimum} character${min.minimum === 1 ? "" : "s"}`);
  }
  return { type: "string", limit: parts.length > 0 ? parts.join(", ") : undefined };
}

/** A table with entries under free keys (`keyedTable`): strict objects' catchall is `never`. */
function tableEntries(schema: z.ZodObject): z.ZodType | undefined {
  const catchall = schema._zod.def.catchall as z.ZodType | undefined;
  return catchall === undefined || catchall instanceof z.ZodNever ? undefined : catchall;
}

/** The object inside an array's element (a union such as `"devnet" | {…}`), if any. */
function objectMember(schema: z.ZodType): z.ZodObject | undefined {
  if (schema instanceof z.ZodObject) return schema;
  if (schema instanceof z.ZodUnion) {
    return (schema.options as z.ZodType[]).find((o) => o instanceof z.ZodObject) as
      | z.ZodObject
      | undefined;
  }
  return undefined;
}

function literals(schema: z.ZodType): string[] {
  if (schema instanceof z.ZodLiteral) return [...schema.values].map(String);
  if (schema instanceof z.ZodUnion) return (schema.options as z.ZodType[]).flatMap(literals);
  return [];
}

function leaf(
  path: string,
  type: string,
  defaultValue: unknown,
  limits: { limit: string | undefined; min?: number | undefined; max?: number | undefined },
): Setting {
  return {
    path,
    type,
    default: defaultValue === undefined ? undefined : flow(defaultValue),
    limit: limits.limit,
    min: limits.min,
    max: limits.max,
  };
}

/**
 * A setting's path with one more key: `.key`, or `."key"` when the key has dots of its own
 * (`pricing."blockchain.transaction.get"`), so every path reads one way.
 */
export function joinPath(path: string, key: string): string {
  const part = /^(?:[A-Za-z_][A-Za-z0-9_]*|<network>|<name>)$/.test(key)
    ? key
    : JSON.stringify(key);
  return path === "" ? part : `${path}.${part}`;
}

function walk(schema: z.ZodType, path: string, defaultValue: unknown, out: Setting[]): void {
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault) {
    const inner = schema._zod.def.innerType as z.ZodType;
    // A prefault of {} on an object only says "fill in every field's default": no value of its own.
    const value = schema._zod.def.defaultValue;
    const own = inner instanceof z.ZodObject && !tableEntries(inner) ? undefined : value;
    walk(inner, path, own, out);
  } else if (schema instanceof z.ZodOptional) {
    walk(schema._zod.def.innerType as z.ZodType, path, defaultValue, out);
  } else if (schema instanceof z.ZodPipe) {
    // A value checked, then transformed (a digest lower-cased): what the file holds is the input.
    walk(schema._zod.def.in as z.ZodType, path, defaultValue, out);
  } else if (schema instanceof z.ZodObject) {
    walkObject(schema, path, defaultValue, out);
  } else if (schema instanceof z.ZodRecord) {
    // Keyed by network (upstreams), or by a name of the operator's choosing (plans).
    const keys = schema._zod.def.keyType;
    const placeholder = keys instanceof z.ZodEnum ? "<network>" : "<name>";
    walk(schema._zod.def.valueType as z.ZodType, joinPath(path, placeholder), undefined, out);
  } else if (schema instanceof z.ZodNullable) {
    const inner: Setting[] = [];
    walk(schema._zod.def.innerType as z.ZodType, path, defaultValue, inner);
    for (const setting of inner) out.push({ ...setting, type: `${setting.type} or null` });
  } else if (schema instanceof z.ZodArray) {
    walkArray(schema, path, defaultValue, out);
  } else {
    out.push(scalar(schema, path, defaultValue));
  }
}

function walkObject(
  schema: z.ZodObject,
  path: string,
  defaultValue: unknown,
  out: Setting[],
): void {
  const catchall = tableEntries(schema);
  if (!catchall) {
    for (const [key, field] of Object.entries(schema.shape)) {
      walk(field as z.ZodType, joinPath(path, key), undefined, out);
    }
    return;
  }
  // A keyed table: `default` plus entries per key (a network, `<type>.<field>`).
  const bounds = numberBounds(catchall);
  // Which keys a table takes lives in a refinement zod cannot show; only weights are not per network.
  const keyed = path === "graph.weights" ? "`<type>.<field>`" : "network";
  out.push(
    leaf(path, `${bounds.type} per ${keyed}, \`default\` for the rest`, defaultValue, bounds),
  );
}

function walkArray(schema: z.ZodArray, path: string, defaultValue: unknown, out: Setting[]): void {
  const element = schema._zod.def.element as z.ZodType;
  const min = checksOf(schema)
    .map((c) => checkDef<{ minimum: number }>(c, "min_length")?.minimum)
    .find((m) => m !== undefined);
  const count = min ? `at least ${min}` : undefined;
  const object = objectMember(element);
  if (object) {
    const names = literals(element).map((l) => `\`${l}\``);
    // Upstream lists name `devnet` beside the object; other lists hold objects alone.
    const type =
      names.length > 0 ? `list of ${[...names, "upstream"].join(" or ")}` : "list of objects";
    out.push(leaf(path, type, defaultValue, { limit: count }));
    walk(object, `${path}[]`, undefined, out);
    return;
  }
  if (element instanceof z.ZodEnum) {
    const values = element.options.map(String);
    const type =
      values.join() === NETWORK_NAMES.join() ? "list of networks" : `list of ${values.join(", ")}`;
    out.push(leaf(path, type, defaultValue, { limit: count }));
    return;
  }
  // A list of plain values: each item's own rule is the limit that matters.
  const item: Setting[] = [];
  walk(element, path, undefined, item);
  const each = item[0]?.limit;
  const limit = [count, each && `each ${each}`].filter(Boolean).join(", ") || undefined;
  out.push(leaf(path, `list of ${item[0]?.type ?? "values"}`, defaultValue, { limit }));
}

/** A number, boolean, enum or string setting. */
function scalar(schema: z.ZodType, path: string, defaultValue: unknown): Setting {
  if (schema instanceof z.ZodNumber) {
    const bounds = numberBounds(schema);
    return leaf(path, bounds.type, defaultValue, bounds);
  }
  if (schema instanceof z.ZodBoolean)
    return leaf(path, "boolean", defaultValue, { limit: undefined });
  if (schema instanceof z.ZodEnum) {
    const type = `one of ${schema.options.map((o) => `\`${String(o)}\``).join(", ")}`;
    return leaf(path, type, defaultValue, { limit: undefined });
  }
  if (schema instanceof z.ZodUnion) {
    // A number or a word (`server.workers`: a count or `auto`).
    const number = (schema.options as z.ZodType[]).find((o) => o instanceof z.ZodNumber);
    if (number) {
      const bounds = numberBounds(number);
      const words = literals(schema).map((l) => `\`${l}\``);
      return leaf(path, [bounds.type, ...words].join(" or "), defaultValue, bounds);
    }
  }
  if (schema._zod.def.type === "string") {
    const s = stringType(schema);
    return leaf(path, s.type, defaultValue, { limit: s.limit });
  }
  throw new Error(`${path}: no reference rendering for a ${schema._zod.def.type} schema`);
}

/** Every setting of the config schema (or another object schema), in the schema's order. */
export function configSettings(schema: z.ZodType = configSchema): Setting[] {
  const out: Setting[] = [];
  walk(schema, "", undefined, out);
  return out;
}

/** The settings as a Markdown table (docs/operators/configuration.md, generated so it cannot drift). */
function configReferenceTable(): string {
  const cell = (s: string | undefined) => (s === undefined ? "—" : s.replaceAll("|", "\\|"));
  const code = (s: string | undefined) => (s === undefined ? "—" : `\`${s}\``);
  const rows = configSettings().map(
    (s) => `| \`${s.path}\` | ${cell(s.type)} | ${code(s.default)} | ${cell(s.limit)} |`,
  );
  return ["| setting | type | default | limit |", "|---|---|---|---|", ...rows].join("\n");
}

const START = "<!-- config-reference:start (generated by scripts/config-reference.ts) -->";
const END = "<!-- config-reference:end -->";

/** A page's text with its reference table, between the two markers, made current. */
export function withReferenceTable(readme: string): string {
  const from = readme.indexOf(START);
  const to = readme.indexOf(END);
  if (from < 0 || to < from) throw new Error(`the page lacks the markers ${START} … ${END}`);
  return `${readme.slice(0, from + START.length)}\n${configReferenceTable()}\n${readme.slice(to)}`;
}
