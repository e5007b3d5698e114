// The `reasoning_effort` values, apart from the schema that checks them in a config file
// (./modelSchema.ts): the workflow loader names them in its messages without building any schema.
export const REASONING_EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh"] as const
