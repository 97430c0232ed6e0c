// `npx tsx scripts/config-reference.ts`: rewrites the configuration reference table of
// docs/operators/configuration.md from the zod schema (src/config/schema.ts), between its markers.
// test/config/reference.test.ts fails while that table and the schema differ.
import { readFileSync, writeFileSync } from "node:fs";
import { withReferenceTable } from "../src/config/reference.ts";

const page = new URL("../docs/operators/configuration.md", import.meta.url);
writeFileSync(page, withReferenceTable(readFileSync(page, "utf8")));
