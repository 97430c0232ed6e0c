// `npx tsx scripts/method-catalogue.ts`: rewrites README.md's method catalogue table (every method
// the JSON-RPC mirrors serve, at the default prices) between its markers.
// test/catalogue/catalogue.test.ts fails while the README's table and src/catalogue/ differ.
import { readFileSync, writeFileSync } from "node:fs";
import { withCatalogueTable } from "../src/catalogue/render.ts";
import { parseConfig } from "../src/config/load.ts";

const readme = new URL("../README.md", import.meta.url);
writeFileSync(readme, withCatalogueTable(readFileSync(readme, "utf8"), parseConfig({})));
