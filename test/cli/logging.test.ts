import { describe, expect, test } from "bun:test"
import { Effect, References } from "effect"
import { countVerbosity, levelFor, levelFromEnvFilter, loggingLayer, withLogging } from "../../src/cli/logging.ts"

describe("verbosity", () => {
  test("counts -v the way the parser clusters short flags, up to --", () => {
    expect(countVerbosity(["run", "wf.yml"])).toBe(0)
    expect(countVerbosity(["-v", "run"])).toBe(1)
    expect(countVerbosity(["-vv", "run"])).toBe(2)
    expect(countVerbosity(["run", "-v", "x", "--verbose"])).toBe(2)
    expect(countVerbosity(["run", "--", "-vv"])).toBe(0)
    expect(countVerbosity(["-V"])).toBe(0)
  })

  test("-v is debug, -vv trace, default warn; LAIT_LOG overrides", () => {
    expect(levelFor(0, undefined)).toBe("Warn")
    expect(levelFor(1, undefined)).toBe("Debug")
    expect(levelFor(2, undefined)).toBe("Trace")
    expect(levelFor(2, "error")).toBe("Error")
    expect(levelFor(0, "lait=debug")).toBe("Debug")
    expect(levelFor(0, "off")).toBe("None")
  })

  test("EnvFilter directives: a lait= directive beats a bare level; other targets are ignored", () => {
    expect(levelFromEnvFilter("warn,lait=trace")).toBe("Trace")
    expect(levelFromEnvFilter("lait::engine=info,debug")).toBe("Info")
    expect(levelFromEnvFilter("hyper=trace")).toBeUndefined()
    expect(levelFromEnvFilter("")).toBeUndefined()
  })
})

// The lean run path provides logging as plain services (no layer to build at start-up): the same ones.
describe("withLogging", () => {
  const seen = Effect.gen(function*() {
    return { loggers: [...(yield* References.CurrentLoggers)], level: yield* References.MinimumLogLevel }
  })
  test("provides the loggers and the minimum level loggingLayer provides", () => {
    for (const level of ["Warn", "Debug", "Trace", "None"] as const) {
      const fromLayer = Effect.runSync(seen.pipe(Effect.provide(loggingLayer(level))))
      const fromServices = Effect.runSync(seen.pipe(withLogging(level)))
      expect(fromServices.level).toBe(level)
      expect(fromServices).toEqual(fromLayer)
      expect(fromServices.loggers).toHaveLength(1)
    }
  })
})
