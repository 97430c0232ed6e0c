// `npm start`: the compiled gateway, rebuilt first when src/ changed. It runs in this process, so
// a signal sent to `npm start` reaches the gateway itself and drains it.
import { ensureBuild } from "./ensure-build.mjs";

await ensureBuild();
// As Node servers are deployed, unless told otherwise: graphql-js then skips its development
// check that every schema object comes from one copy of the library, an `instanceof` fallback
// run for every field it executes (a sixth of /gateway's latency on 50 verbose transactions).
// Set before the gateway's modules load: graphql-js reads it once, as it is imported.
process.env.NODE_ENV ??= "production";
await import("../dist/main.js");
