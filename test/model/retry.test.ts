// Retries at one endpoint are a Schedule: exponential from the backoff, Retry-After instead when the
// server sent one, at most `attempts` tries, none for a failure that will not go away, and a warning
// on stderr before every wait.
import { describe, expect, test } from "bun:test"
import { Duration, Effect, Schedule } from "effect"
import { TestConsole } from "effect/testing"
import { type Retryable, retrying, retryPolicy } from "../../src/model/retry.ts"

type Failure = { readonly text: string; readonly retry: boolean; readonly retryAfterMillis?: number }

const retryable = (f: Failure): Retryable | undefined =>
  f.retry
    ? {
      reason: f.text,
      saysHowLong: false,
      retryAfter: f.retryAfterMillis === undefined ? undefined : { millis: f.retryAfterMillis }
    }
    : undefined

/** Runs a send that fails with `script` in turn (then succeeds); what it ended with, tries, warnings. */
const scripted = (script: ReadonlyArray<Failure>, attempts: number) =>
  Effect.gen(function*() {
    let tries = 0
    const send = Effect.suspend(() => {
      const failure = script[tries++]
      return failure === undefined ? Effect.succeed("answer") : Effect.fail(failure)
    })
    const outcome = yield* retrying(send, { attempts, backoff: Duration.millis(4), retryable }).pipe(
      Effect.catch((f) => Effect.succeed(`failed: ${f.text}`))
    )
    return { outcome, tries, warnings: yield* TestConsole.errorLines }
  }).pipe(Effect.provide(TestConsole.layer), Effect.runPromise)

const transient = (text: string, retryAfterMillis?: number): Failure => ({
  text,
  retry: true,
  ...(retryAfterMillis === undefined ? {} : { retryAfterMillis })
})

describe("retrying", () => {
  test("waits double each time and says so; the last failure is the error", async () => {
    expect(await scripted([transient("a"), transient("b"), transient("c"), transient("d")], 3)).toEqual({
      outcome: "failed: c",
      tries: 3,
      warnings: ["warning: a (attempt 1/3); retrying in 4 ms", "warning: b (attempt 2/3); retrying in 8 ms"]
    })
  })

  test("a server's Retry-After replaces one wait; the backoff keeps doubling underneath", async () => {
    expect(await scripted([transient("a"), transient("b", 1), transient("c")], 4)).toEqual({
      outcome: "answer",
      tries: 4,
      warnings: [
        "warning: a (attempt 1/4); retrying in 4 ms",
        "warning: b (attempt 2/4); retrying in 1 ms (Retry-After)",
        "warning: c (attempt 3/4); retrying in 16 ms"
      ]
    })
  })

  test("a failure that will not go away ends it at once; one attempt means no retry", async () => {
    expect(await scripted([transient("a"), { text: "final", retry: false }], 3)).toEqual({
      outcome: "failed: final",
      tries: 2,
      warnings: ["warning: a (attempt 1/3); retrying in 4 ms"]
    })
    expect(await scripted([transient("a")], 1)).toEqual({ outcome: "failed: a", tries: 1, warnings: [] })
  })

  test("the policy is a Schedule Effect.retry takes", async () => {
    const policy = retryPolicy({ attempts: 2, backoff: Duration.millis(1), retryable })
    expect(Schedule.isSchedule(policy)).toBe(true)
    let tries = 0
    const timed = Effect.suspend(() => (++tries < 2 ? Effect.fail({ error: transient("x"), elapsedMillis: 0 }) : Effect.succeed(tries)))
    const result = await Effect.runPromise(Effect.retry(timed, policy).pipe(Effect.provide(TestConsole.layer)))
    expect(result).toBe(2)
  })
})
