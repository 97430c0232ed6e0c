#!/usr/bin/env node
// `npx blockgate …`: the CLI is TypeScript run through tsx's loader, as `npm start` runs it.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
