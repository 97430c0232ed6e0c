// `npm run schema`: writes the unified API's SDL to schema/gateway.graphql (codegen's input).
import { writeFileSync } from "node:fs";
import { printGatewaySchema } from "../src/routes/gateway/schema.ts";

writeFileSync(new URL("../schema/gateway.graphql", import.meta.url), printGatewaySchema());
