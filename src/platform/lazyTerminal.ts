// Effect's Terminal service, built on first use. The Node/Bun layer builds it at layer construction,
// which touches `process.stdin` (Bun then creates the stdin stream) on every start-up, though only
// effect/cli's prompts ever use the service; the real terminal is made, once, when a method runs.
import * as NodeTerminal from "@effect/platform-node-shared/NodeTerminal"
import { Effect, Layer, Scope, Terminal } from "effect"

export const lazyTerminalLayer = (
  make: Effect.Effect<Terminal.Terminal, never, Scope.Scope> = NodeTerminal.make()
): Layer.Layer<Terminal.Terminal> =>
  Layer.effect(
    Terminal.Terminal,
    Effect.gen(function*() {
      // The real terminal's finalizers (its stdin listeners) belong to the layer's scope, not to
      // the first caller's.
      const scope = yield* Effect.scope
      const real = yield* Effect.cached(Scope.provide(make, scope))
      return Terminal.make({
        columns: Effect.flatMap(real, (t) => t.columns),
        rows: Effect.flatMap(real, (t) => t.rows),
        size: Effect.flatMap(real, (t) => t.size),
        readInput: Effect.flatMap(real, (t) => t.readInput),
        readLine: Effect.flatMap(real, (t) => t.readLine),
        display: (text) => Effect.flatMap(real, (t) => t.display(text))
      })
    })
  )
