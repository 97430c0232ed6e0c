// `npm start`: the compiled gateway, rebuilt first when src/ changed. It runs in this process, so
// a signal sent to `npm start` reaches the gateway itself and drains it.
import { ensureBuild } from "./ensure-build.mjs";

await ensureBuild();
await import("../dist/main.js");
