// How the live layer waits between attempts at one endpoint, and what it tells the user before it
// does: a retry can cost minutes (a stalled server times out per attempt), so none is silent.
import { Console, Duration, Effect, Schedule } from "effect"
import { formatWait } from "../core/units.ts"

/** A server's `Retry-After` is obeyed up to this; beyond it, waiting would look like a hang. */
export const RETRY_AFTER_CAP_MS = 60_000

export const formatDuration = (duration: Duration.Duration): string => formatWait(Duration.toMillis(duration))

export interface RetryAfter {
  /** What to wait, capped. */
  readonly millis: number
  /** What the server asked for, when that was more than the cap. */
  readonly askedMillis?: number
  /** Set when the wait came from OpenAI's `retry-after-ms` rather than `Retry-After`. */
  readonly header?: "retry-after-ms"
}

const capped = (millis: number): RetryAfter =>
  millis > RETRY_AFTER_CAP_MS ? { millis: RETRY_AFTER_CAP_MS, askedMillis: millis } : { millis }

/**
 * The wait a 429 or 503 asks for: OpenAI's `retry-after-ms` (milliseconds, fractions allowed), else
 * `Retry-After` as delay-seconds or as an HTTP date, capped at RETRY_AFTER_CAP_MS. Undefined for
 * other statuses and for missing or unreadable headers.
 */
export const retryAfter = (
  status: number,
  headers: Readonly<Record<string, string | undefined>>,
  now = Date.now()
): RetryAfter | undefined => {
  if (status !== 429 && status !== 503) return undefined
  const ms = headers["retry-after-ms"]?.trim()
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) {
    return { ...capped(Math.ceil(Number(ms))), header: "retry-after-ms" }
  }
  const value = headers["retry-after"]?.trim()
  if (value === undefined || value === "") return undefined
  let millis: number
  if (/^\d+$/.test(value)) millis = Number(value) * 1000
  else {
    // An HTTP date starts with a day name; Date.parse alone would take "-1" for a year.
    const at = /^[A-Za-z]/.test(value) ? Date.parse(value) : Number.NaN
    if (Number.isNaN(at)) return undefined
    millis = Math.max(0, at - now)
  }
  return capped(millis)
}

export interface RetryNotice {
  /** The failure, as the final error line would say it. */
  readonly reason: string
  /** Whether `reason` already says how long the attempt waited (a timeout does). */
  readonly saysHowLong: boolean
  readonly attempt: number
  readonly attempts: number
  /** How long the failed attempt took. */
  readonly elapsedMillis: number
  readonly waitMillis: number
  readonly retryAfter?: RetryAfter | undefined
}

/**
 * `warning: <reason> (attempt 1/3); retrying in 250 ms`. An attempt that took a second or more says
 * so: that is where a slow retry's time went.
 */
export const retryWarning = (n: RetryNotice): string => {
  const took = !n.saysHowLong && n.elapsedMillis >= 1000 ? `, after ${formatWait(n.elapsedMillis)}` : ""
  const header = n.retryAfter?.header ?? "Retry-After"
  const why = n.retryAfter === undefined
    ? ""
    : n.retryAfter.askedMillis === undefined
    ? ` (${header})`
    : ` (${header} asked for ${formatWait(n.retryAfter.askedMillis)}; capped)`
  return `warning: ${n.reason} (attempt ${n.attempt}/${n.attempts}${took}); retrying in ${
    formatWait(n.waitMillis)
  }${why}`
}

/** A failure worth another attempt, as the warning before it tells it. */
export interface Retryable {
  /** The failure, as the final error line would say it. */
  readonly reason: string
  /** Whether `reason` already says how long the attempt waited (a timeout does). */
  readonly saysHowLong: boolean
  /** The server's `Retry-After` on a 429/503, used instead of the backoff. */
  readonly retryAfter?: RetryAfter | undefined
}

/** A failed attempt and how long it took: the input of the retry schedule. */
export interface FailedAttempt<E> {
  readonly error: E
  readonly elapsedMillis: number
}

export interface RetryOptions<E> {
  /** Attempts in all, the first included. */
  readonly attempts: number
  /** The first wait; doubled after each failure. */
  readonly backoff: Duration.Duration
  /** Whether a failure may go away (undefined: it is final), and how the warning tells it. */
  readonly retryable: (error: E) => Retryable | undefined
}

/**
 * When to try again: exponential backoff from `backoff`, at most `attempts - 1` times, only while the
 * failure is retryable, waiting the server's Retry-After instead when it sent one, and saying so on
 * stderr before each wait.
 */
export const retryPolicy = <E>(options: RetryOptions<E>): Schedule.Schedule<Duration.Duration, FailedAttempt<E>> =>
  Schedule.exponential(options.backoff, 2).pipe(
    Schedule.setInputType<FailedAttempt<E>>(),
    Schedule.upTo({ times: Math.max(0, options.attempts - 1) }),
    Schedule.while(({ input }) => options.retryable(input.error) !== undefined),
    Schedule.modifyDelay(({ input, duration }) =>
      Effect.succeed(options.retryable(input.error)?.retryAfter?.millis ?? duration)
    ),
    Schedule.tap(({ attempt, duration, input }) => {
      const retry = options.retryable(input.error)!
      return Console.error(retryWarning({
        reason: retry.reason,
        saysHowLong: retry.saysHowLong,
        attempt,
        attempts: options.attempts,
        elapsedMillis: input.elapsedMillis,
        waitMillis: Duration.toMillis(duration),
        retryAfter: retry.retryAfter
      }))
    })
  )

/**
 * Runs `send` and retries it by `retryPolicy`; fails with the last failure. Nearly every request
 * succeeds at once, and setting up a retry costs as much as the rest of the client's work on an
 * answer (an eval sends thousands): the policy starts only after a first failure, which it then sees
 * as the outcome of its own first attempt, so its waits and warnings are the same.
 */
export const retrying = <A, E, R>(send: Effect.Effect<A, E, R>, options: RetryOptions<E>): Effect.Effect<A, E, R> => {
  const timed = Effect.suspend(() => {
    const started = Date.now()
    return Effect.mapError(send, (error): FailedAttempt<E> => ({ error, elapsedMillis: Date.now() - started }))
  })
  const afterFirstFailure = (first: FailedAttempt<E>) => {
    let pending: FailedAttempt<E> | undefined = first
    const attempt = Effect.suspend(() => {
      if (pending === undefined) return timed
      const failed = pending
      pending = undefined
      return Effect.fail(failed)
    })
    return Effect.retry(attempt, retryPolicy(options))
  }
  return Effect.catch(timed, afterFirstFailure).pipe(Effect.mapError((failed) => failed.error))
}
