// `npx tsx scripts/config-reference.ts`: rewrites README.md's configuration reference table from
// the zod schema (src/config/schema.ts), between its markers. test/config/reference.test.ts fails
// while the README's table and the schema differ.
import { readFileSync, writeFileSync } from "node:fs";
import { withReferenceTable } from "../src/config/reference.ts";

const readme = new URL("../README.md", import.meta.url);
writeFileSync(readme, withReferenceTable(readFileSync(readme, "utf8")));
