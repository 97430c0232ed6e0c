import { type Browser, chromium } from "playwright-core";
import { inject } from "vitest";

/** The Chromium that globalSetup chose (test/support/chromium.ts), driven by playwright-core. */
export function launchChromium(): Promise<Browser> {
  const found = inject("chromium");
  if ("error" in found) throw new Error(found.error);
  // Ours, for any build: headless, no GPU, and no traffic of its own (updates, sync, QUIC): the
  // tests run offline.
  const ours = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
  ];
  return chromium.launch({
    executablePath: found.path,
    args: [...new Set([...ours, ...found.args])],
    env: { ...process.env, ...found.env },
  });
}
