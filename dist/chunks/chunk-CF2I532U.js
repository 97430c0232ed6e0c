// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.
import {
  readAdminFile
} from "./chunk-GIQUGMH5.js";

// src/cli/gateway-call.ts
function findGateway(config, env) {
  const admin = readAdminFile(config);
  const token = env.BLOCKGATE_OPERATOR_TOKEN || void 0;
  if (admin) return { url: admin.url, credential: token ?? admin.secret };
  if (!token) return null;
  const host = config.server.host.includes(":") ? `[${config.server.host}]` : config.server.host;
  return { url: `http://${host}:${config.server.port}`, credential: token };
}
async function postToGateway(gateway, path, body) {
  try {
    const res = await fetch(`${gateway.url}${path}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${gateway.credential}`,
        "content-type": "application/json"
      },
      body: JSON.stringify(body)
    });
    return { status: res.status, json: await res.json() };
  } catch {
    return null;
  }
}

export {
  findGateway,
  postToGateway
};
