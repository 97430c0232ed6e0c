// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.
import {
  findGateway,
  postToGateway
} from "./chunk-CF2I532U.js";
import "./chunk-GIQUGMH5.js";

// src/cli/devnet.ts
import { parseArgs } from "node:util";
var DEVNET_USAGE = `usage: blockgate devnet mine [--network N] [--blocks K]    K blocks on N's tip (default regtest, 1)
       blockgate devnet reorg [--network N] [--depth D]   D blocks off N's best chain, D + 1 new ones on the fork point`;
async function runDevnetCommand(args, config, env) {
  const [action, ...rest] = args;
  if (action !== "mine" && action !== "reorg") return { text: DEVNET_USAGE, code: 2 };
  let values;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        network: { type: "string" },
        blocks: { type: "string" },
        depth: { type: "string" }
      }
    }));
  } catch (err) {
    return { text: `devnet ${action}: ${err.message}
${DEVNET_USAGE}`, code: 2 };
  }
  if (values[action === "mine" ? "depth" : "blocks"] !== void 0) {
    return {
      text: `devnet ${action}: --${action === "mine" ? "depth" : "blocks"} is not one of its options
${DEVNET_USAGE}`,
      code: 2
    };
  }
  const key = action === "mine" ? "blocks" : "depth";
  const given = values[key];
  if (given !== void 0 && !/^[1-9]\d{0,5}$/.test(given)) {
    return {
      text: `devnet ${action}: --${key} takes a positive integer
${DEVNET_USAGE}`,
      code: 2
    };
  }
  const gateway = findGateway(config, env);
  if (!gateway) {
    return {
      text: "devnet: no running gateway found (start one with npm start; with DATABASE_URL, set BLOCKGATE_OPERATOR_TOKEN)",
      code: 1
    };
  }
  const body = {
    network: values.network ?? "regtest",
    ...given === void 0 ? {} : { [key]: Number(given) }
  };
  const res = await postToGateway(gateway, `/admin/devnet/${action}`, body);
  if (!res) return { text: `devnet: the gateway at ${gateway.url} does not answer`, code: 1 };
  if (res.status !== 200) {
    const message = res.json.error?.message;
    return { text: `devnet ${action}: ${message ?? `HTTP ${res.status}`}`, code: 1 };
  }
  return { text: JSON.stringify(res.json, null, 2), code: 0 };
}
export {
  DEVNET_USAGE,
  runDevnetCommand
};
