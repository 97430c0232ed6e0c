// `npx tsx scripts/method-catalogue.ts`: rewrites the method catalogue table of
// docs/users/methods.md (every method the JSON-RPC mirrors serve, at the default prices) between
// its markers. test/catalogue/catalogue.test.ts fails while that table and src/routes/catalogue/ differ.
import { readFileSync, writeFileSync } from "node:fs";
import { parseConfig } from "../src/config/load.ts";
import { withCatalogueTable } from "../src/routes/catalogue/render.ts";

const page = new URL("../docs/users/methods.md", import.meta.url);
writeFileSync(page, withCatalogueTable(readFileSync(page, "utf8"), parseConfig({})));
