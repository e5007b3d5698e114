// The runtime's runner for the process's main fiber (Effect's `runMain`): on Bun, @effect/platform-bun's;
// elsewhere (Deno) @effect/platform-node-shared's. Chosen here, as src/platform/layer.ts chooses the
// services, so that nothing outside src/platform/ names the runtime. The subpaths, not the barrels:
// nothing else of either package is loaded for it.
import * as BunRuntime from "@effect/platform-bun/BunRuntime"
import * as NodeRuntime from "@effect/platform-node-shared/NodeRuntime"

export const runMain: typeof NodeRuntime.runMain = process.versions.bun !== undefined
  ? BunRuntime.runMain
  : NodeRuntime.runMain
