// Run as a process of its own by test/upstreams/deadline.test.ts: what a request's deadline, and
// what its listener holds, leave in the old generation. In its own process because a test
// worker's heap, warmed by every other test, hides what Node's AbortSignal does here (it promoted
// nothing there and most of it in a fresh process). Prints {cancel, native} in bytes.
import { deadline } from "../../src/upstreams/deadline.ts";
import { Cancel } from "../../src/util/cancel.ts";
import { ageEverything, promotedBy } from "./promoted.ts";

// A caller's, which every request's deadline follows (as a failover attempt's does).
const outer = new Cancel();
function requests(
  make: () => { signal: { addEventListener(t: "abort", f: () => void): void }; clear(): void },
): void {
  for (let i = 0; i < 5_000; i++) {
    const held = { text: `${"ab".repeat(500)}${i}` };
    const d = make();
    d.signal.addEventListener("abort", () => held.text.length);
    d.clear();
  }
}
const measure = (make: Parameters<typeof requests>[0]): number => {
  const work = () => requests(make);
  work(); // once first: compiling it allocates in the old generation too
  ageEverything();
  return promotedBy(work);
};
const cancel = measure(() => deadline(60_000, outer));
// What the deadline was before: Node's AbortController and its signal.
const native = measure(() => {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 60_000);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
});
process.stdout.write(`${JSON.stringify({ cancel, native })}\n`);
