// `--strict-replay` (docs/record-replay.md#a-moved-server): only a cassette with the request's exact key
// answers, never one recorded for another base URL. Read when the replay layer is built; a module of its
// own so that the command line can set it without loading the replay layer.
import { Context } from "effect"

export const StrictReplay = Context.Reference<boolean>("lait/model/Replay/StrictReplay", { defaultValue: () => false })
