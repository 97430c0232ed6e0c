import { type Browser, chromium, type Page } from "playwright-core";
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

/**
 * Saves a screenshot for people to look at (test-results/): a record, not a check. Chromium
 * sometimes cannot capture a frame on a loaded machine ("Unable to capture screenshot"): it is
 * tried once more, and if it still fails that is said, and the test's checks decide its outcome.
 */
export async function keepScreenshot(
  page: Page,
  options: { path: string; fullPage?: boolean },
): Promise<void> {
  try {
    await page.screenshot(options);
  } catch {
    await page.screenshot(options).catch((err: Error) => {
      process.stdout.write(`screenshot ${options.path} not saved: ${err.message.split("\n")[0]}\n`);
    });
  }
}
