import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.ts";
import { adminFilePath, writesAdminFile } from "../../src/routes/admin/admin-file.ts";

describe("the CLI's hand-off file", () => {
  it("is written next to a PGlite folder, never for an in-memory store", () => {
    const folder = parseConfig({ database: { pgliteDir: "/var/lib/blockgate/db/" } });
    expect(writesAdminFile(folder)).toBe(true);
    expect(adminFilePath(folder)).toBe("/var/lib/blockgate/db.admin.json");
    // No other process can open it, and it has no folder: the file would land in the working
    // directory as `memory:.admin.json`.
    expect(writesAdminFile(parseConfig({ database: { pgliteDir: "memory://" } }))).toBe(false);
  });
});
