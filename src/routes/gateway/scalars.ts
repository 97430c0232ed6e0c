import { GraphQLError, Kind, type ValueNode } from "graphql";
import { builder } from "./builder.ts";

const HEX64 = /^[0-9a-fA-F]{64}$/;

function hash64(name: string, what: string) {
  const parse = (value: unknown): string => {
    if (typeof value !== "string" || !HEX64.test(value)) {
      throw new GraphQLError(`${name} must be 64 hexadecimal characters (${what.toLowerCase()})`, {
        extensions: { code: "BAD_USER_INPUT" },
      });
    }
    return value.toLowerCase();
  };
  return builder.scalarType(name as "TxId" | "BlockHash", {
    description: `${what}: 64 hexadecimal characters, in the display (RPC) byte order.`,
    serialize: (v) => v as string,
    parseValue: parse,
    parseLiteral: (ast: ValueNode) => parse(ast.kind === Kind.STRING ? ast.value : undefined),
  });
}

hash64("TxId", "A transaction id");
hash64("BlockHash", "A block hash");

builder.scalarType("Hex", {
  description: "Bytes as lowercase hexadecimal, two characters a byte.",
  serialize: (v) => v,
  parseValue: (v) => {
    if (typeof v !== "string" || !/^([0-9a-fA-F]{2})*$/.test(v)) {
      throw new GraphQLError("Hex must be an even number of hexadecimal characters", {
        extensions: { code: "BAD_USER_INPUT" },
      });
    }
    return v.toLowerCase();
  },
});

builder.scalarType("Satoshis", {
  description:
    "An amount in satoshis, as a JSON integer. Every amount Bitcoin can hold (≤ 2.1 × 10^15) is exact in IEEE doubles, so this is never a rounded float.",
  serialize: (v) => {
    const n = Number(v);
    if (!Number.isSafeInteger(n)) throw new GraphQLError("amount out of range");
    return n;
  },
  parseValue: (v) => {
    if (typeof v !== "number" || !Number.isSafeInteger(v)) {
      throw new GraphQLError("Satoshis must be an integer", {
        extensions: { code: "BAD_USER_INPUT" },
      });
    }
    return BigInt(v);
  },
});

builder.scalarType("BtcAmount", {
  description:
    'An amount in BTC as Bitcoin Core prints it: always 8 decimals, as a string ("0.00100000").',
  serialize: (v) => v,
  parseValue: (v) => String(v),
});

builder.scalarType("DateTime", {
  description: "An instant, as an ISO 8601 string in UTC.",
  serialize: (v) => v.toISOString(),
  parseValue: (v) => new Date(String(v)),
});

function integerScalar(name: "UInt32" | "Credits", description: string, max: number) {
  const parse = (v: unknown): number => {
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > max) {
      throw new GraphQLError(`${name} must be an integer from 0 to ${max}`, {
        extensions: { code: "BAD_USER_INPUT" },
      });
    }
    return v;
  };
  builder.scalarType(name, {
    description,
    serialize: (v) => v,
    parseValue: parse,
    parseLiteral: (ast) => parse(ast.kind === Kind.INT ? Number(ast.value) : undefined),
  });
}

integerScalar(
  "UInt32",
  "An unsigned 32-bit integer (nSequence, nLockTime, nVersion): beyond GraphQL's signed Int, exact as a JSON number.",
  4_294_967_295,
);
integerScalar("Credits", "A number of credits (CC), as a JSON integer.", Number.MAX_SAFE_INTEGER);
