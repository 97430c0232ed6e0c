import type { UsageBucket } from "../../../billing/usage/timeline.ts";
import { builder } from "../builder.ts";

export const BucketSizeEnum = builder.enumType("UsageBucketSize", {
  description: "How long each bucket of a usage timeline is (UTC).",
  values: { HOUR: { value: "hour" }, DAY: { value: "day" } } as const,
});

export const UsageBucketRef = builder.objectRef<UsageBucket>("UsageBucket").implement({
  description: "An hour or UTC day of calls (buckets without calls are absent).",
  fields: (t) => ({
    start: t.field({ type: "DateTime", resolve: (b) => b.start }),
    calls: t.int({ description: "Every call, refused ones included.", resolve: (b) => b.calls }),
    refusedCalls: t.int({
      description: "Of the calls, those refused before anything ran: never charged.",
      resolve: (b) => b.refused,
    }),
    failedCalls: t.int({
      description:
        "Of the calls, those that ran and failed: the upstream's error, no upstream answering, or an answer over the size limit.",
      resolve: (b) => b.failed,
    }),
    chargedCc: t.field({ type: "Credits", resolve: (b) => b.charged }),
    latencyP50Ms: t.int({
      nullable: true,
      description: "Median time of the calls that ran (refused ones left out); null if none ran.",
      resolve: (b) => b.p50,
    }),
    latencyP95Ms: t.int({ nullable: true, resolve: (b) => b.p95 }),
    latencyP99Ms: t.int({ nullable: true, resolve: (b) => b.p99 }),
  }),
});
