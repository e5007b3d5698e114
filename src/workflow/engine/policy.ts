// Retry and timeouts: a step's `retry:` (attempts, delay, backoff) and per-attempt `timeout:`, and a
// file's own `timeout:`. The waits between attempts are an exponential Schedule; the attempts are
// Effect.retry over it.
import { Deferred, Duration, Effect, Fiber, Schedule } from "effect"
import { type AnyLaitError, renderChain } from "../../core/errors.ts"
import { StepError } from "../stepErrors.ts"
import type { RetryPolicy, Step, WorkflowDefaults } from "../../lang/model.ts"
import { CANCELLED, cancelledError, checkCancelled, type Frame, isCancelled, observeCancel } from "./frame.ts"

/** The longest single wait between two attempts of a step. */
export const MAX_RETRY_DELAY_SECONDS = 3600

const callsModel = (step: Step): boolean => step.kind.type === "prompt" || step.kind.type === "agent"

/** The `retry` in effect: the step's own, else (model steps only) the file's `default.retry`. */
export const effectiveRetry = (step: Step, defaults: WorkflowDefaults): RetryPolicy | undefined =>
  step.retry ?? (callsModel(step) ? defaults.retry : undefined)

/** The per-attempt `timeout` in effect, by the same rule. */
export const effectiveTimeout = (step: Step, defaults: WorkflowDefaults): number | undefined =>
  step.timeout ?? (callsModel(step) ? defaults.timeout : undefined)

// Duration reads a NaN (0 × an overflowed power of `backoff`) as zero, which is what the wait is.
const capDelay = (delay: Duration.Duration): Duration.Duration =>
  Duration.millis(Math.min(Duration.toMillis(delay), MAX_RETRY_DELAY_SECONDS * 1000))

/**
 * The waits between the attempts of `policy`: `delay_seconds`, then each one `backoff` times the
 * one before, never above 3600 s; one fewer than `max_attempts`.
 */
export const retryDelays = (policy: RetryPolicy | undefined): Schedule.Schedule<Duration.Duration, unknown> => {
  const first = Math.min(policy?.delaySeconds ?? 0, MAX_RETRY_DELAY_SECONDS)
  return Schedule.exponential(Duration.seconds(first), policy?.backoff ?? 1).pipe(
    Schedule.modifyDelay(({ duration }) => Effect.succeed(capDelay(duration))),
    Schedule.upTo({ times: Math.max(1, policy?.maxAttempts ?? 1) - 1 })
  )
}

/**
 * Runs the attempts of one step. `attempt` is one try; each is cut off after the step's timeout, and
 * a failure is announced (`attempt n/N failed: ...; retrying in Ns`) and tried again after the
 * schedule's wait, until the attempts run out (the last failure is the step's). A run cancelled
 * meanwhile fails with its cancellation instead of retrying.
 */
export const withRetryAndTimeout = <A, R>(
  step: Step,
  frame: Frame,
  label: string,
  attempt: Effect.Effect<A, AnyLaitError, R>
): Effect.Effect<A, AnyLaitError, R> => {
  const retry = effectiveRetry(step, frame.scope.defaults)
  const timeout = effectiveTimeout(step, frame.scope.defaults)
  const maxAttempts = Math.max(1, retry?.maxAttempts ?? 1)
  const timed = (n: number) =>
    Effect.andThen(
      checkCancelled(frame),
      timeout === undefined ? attempt : attempt.pipe(
        Effect.timeoutOrElse({
          duration: timeout * 1000,
          orElse: () =>
            Effect.fail(
              new StepError({
                reason: { _tag: "StepTimeout", step: label, seconds: timeout, attempt: n, attempts: maxAttempts }
              })
            )
        })
      )
    )
  if (maxAttempts === 1) return timed(1)
  const schedule = retryDelays(retry).pipe(
    Schedule.setInputType<AnyLaitError>(),
    Schedule.tap(({ attempt: failed, duration, input }) =>
      isCancelled(frame)
        ? Effect.fail(cancelledError())
        : frame.progress.detail(
          `attempt ${failed}/${maxAttempts} failed: ${renderChain(input)}; ` +
            `retrying in ${(Duration.toMillis(duration) / 1000).toFixed(1)}s`
        )
    ),
    // The wait is ours rather than the schedule's so that cancelling the run cuts it short.
    Schedule.modifyDelay(({ duration }) =>
      observeCancel(frame, Effect.sleep(duration), CANCELLED).pipe(Effect.as(Duration.zero))
    )
  )
  // The schedule counts the failures so far; this attempt is the one after them.
  return Effect.retry(
    Schedule.CurrentMetadata.use(({ attempt: failures }) => timed(failures + 1)),
    schedule
  )
}

/**
 * A file's `timeout:`. `"fail"`: the file fails with `workflow timed out after Ns ('timeout')`.
 * `"cancel"`: the run is cancelled (after a line saying so), and whatever runs fails on its own terms.
 */
export const withFileTimeout = <A, R>(
  seconds: number | undefined,
  frame: Frame,
  mode: "fail" | "cancel",
  body: Effect.Effect<A, AnyLaitError, R>
): Effect.Effect<A, AnyLaitError, R> => {
  if (seconds === undefined) return body
  if (mode === "fail") {
    return body.pipe(
      Effect.timeoutOrElse({
        duration: seconds * 1000,
        orElse: () => Effect.fail(new StepError({ reason: { _tag: "WorkflowTimeout", seconds } }))
      })
    )
  }
  const deadline = Effect.sleep(seconds * 1000).pipe(
    Effect.andThen(frame.progress.raw(`lait: the workflow's 'timeout' (${seconds}s) was exceeded; cancelling the run`)),
    Effect.andThen(Deferred.succeed(frame.run.cancel, undefined))
  )
  return Effect.gen(function*() {
    const timer = yield* Effect.forkChild(deadline, { startImmediately: true, uninterruptible: false })
    return yield* Effect.ensuring(body, Fiber.interrupt(timer))
  })
}
