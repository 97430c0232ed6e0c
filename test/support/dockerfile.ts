import { readFileSync } from "node:fs";

/** One instruction: `COPY --from=build /a /b` is { op: "COPY", flags: { from: "build" }, args }. */
export interface Instruction {
  op: string;
  flags: Record<string, string>;
  /** Words after the flags: the JSON array of the exec form, or the shell form split on blanks. */
  args: string[];
  /** The line the instruction starts on, 1-based. */
  line: number;
}

export interface Stage {
  /** `FROM <image> AS <name>`. */
  image: string;
  name: string;
  instructions: Instruction[];
}

/** Joins `\` continuations and drops comments and blank lines, keeping each start line. */
function logicalLines(text: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  let pending: { text: string; line: number } | null = null;
  text.split("\n").forEach((raw, i) => {
    const trimmed = raw.trim();
    if (trimmed.startsWith("#") || (trimmed === "" && pending === null)) return;
    const continued = trimmed.endsWith("\\");
    const part = continued ? trimmed.slice(0, -1).trim() : trimmed;
    pending = pending
      ? { text: `${pending.text} ${part}`, line: pending.line }
      : { text: part, line: i + 1 };
    if (!continued) {
      out.push(pending);
      pending = null;
    }
  });
  return out;
}

function instruction(text: string, line: number): Instruction {
  const [op = "", ...rest] = text.split(/\s+/);
  const flags: Record<string, string> = {};
  while (rest[0]?.startsWith("--")) {
    const [key = "", value = ""] = rest.shift()!.slice(2).split("=");
    flags[key] = value;
  }
  const tail = rest.join(" ");
  // HEALTHCHECK's own flags come before CMD, whose exec form is JSON as well.
  const json = /^(CMD\s+)?(\[.*\])$/.exec(tail);
  const args = json ? [...(json[1] ? ["CMD"] : []), ...(JSON.parse(json[2]!) as string[])] : rest;
  return { op: op.toUpperCase(), flags, args, line };
}

/** The stages of a Dockerfile, in order. */
export function readDockerfile(path: string): Stage[] {
  const stages: Stage[] = [];
  for (const { text, line } of logicalLines(readFileSync(path, "utf8"))) {
    const ins = instruction(text, line);
    if (ins.op === "FROM") {
      const [image = "", as, name = ""] = ins.args;
      stages.push({ image, name: as?.toUpperCase() === "AS" ? name : "", instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`${path}:${line}: ${ins.op} before FROM`);
    stage.instructions.push(ins);
  }
  return stages;
}

/** The instructions of a stage with this op. */
export const ops = (stage: Stage, op: string): Instruction[] =>
  stage.instructions.filter((i) => i.op === op);
