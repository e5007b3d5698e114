// One attempt's timeout (src/model/Live.ts timeoutAfter) behaves as Effect.timeout did: the answer or
// the failure of an attempt within the time passes through; past it, the attempt is interrupted, and
// its interruption finished, before the timeout's failure; interrupting the caller interrupts it too.
import { expect, test } from "bun:test"
import { Effect, Exit, Fiber } from "effect"
import { timeoutAfter } from "../../src/model/Live.ts"

const late = () => "late" as const

test("an attempt that ends in time passes its answer or its failure through", async () => {
  expect(await Effect.runPromise(timeoutAfter(Effect.succeed(1), 50, late))).toBe(1)
  expect(await Effect.runPromise(timeoutAfter(Effect.sleep(5).pipe(Effect.as(2)), 200, late))).toBe(2)
  const failed = await Effect.runPromise(Effect.exit(timeoutAfter(Effect.fail("boom" as const), 50, late)))
  expect(failed).toEqual(Exit.fail("boom"))
})

test("past the time the attempt is interrupted, and has finished, before the timeout's failure", async () => {
  const events: Array<string> = []
  const attempt = Effect.sleep(10_000).pipe(
    Effect.onInterrupt(() => Effect.sleep(20).pipe(Effect.andThen(Effect.sync(() => void events.push("attempt interrupted")))))
  )
  const exit = await Effect.runPromise(
    Effect.exit(timeoutAfter(attempt, 30, late)).pipe(Effect.tap(() => Effect.sync(() => void events.push("caller resumed"))))
  )
  expect(exit).toEqual(Exit.fail("late"))
  // An attempt left to finish its 10 s would never have been interrupted.
  expect(events).toEqual(["attempt interrupted", "caller resumed"])
})

test("interrupting the caller interrupts the attempt and waits for it; no timeout fires later", async () => {
  const events: Array<string> = []
  const attempt = Effect.sleep(10_000).pipe(
    Effect.onInterrupt(() => Effect.sleep(20).pipe(Effect.andThen(Effect.sync(() => void events.push("attempt interrupted")))))
  )
  await Effect.runPromise(Effect.gen(function*() {
    const caller = yield* Effect.forkChild(timeoutAfter(attempt, 60, () => {
      events.push("timed out")
      return "late" as const
    }))
    yield* Effect.sleep(10)
    yield* Fiber.interrupt(caller)
    events.push("caller interrupted")
    yield* Effect.sleep(100)
  }))
  expect(events).toEqual(["attempt interrupted", "caller interrupted"])
})
