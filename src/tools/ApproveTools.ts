// Whether `--approve-tools` is in effect. A reference (default off) rather than a required service,
// so only `lait run` has to say anything about it; `lait test`/`lait eval` never prompt. Kept in its
// own module because run.ts imports it at start-up.
import { Context } from "effect"

export const ApproveTools = Context.Reference<boolean>("lait/tools/ApproveTools", { defaultValue: () => false })
