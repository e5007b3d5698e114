// How the live layer waits between attempts at one endpoint, and what it tells the user before it
// does: a retry can cost minutes (a stalled server times out per attempt), so none is silent.
import { Console, Duration, Effect } from "effect"

/** A server's `Retry-After` is obeyed up to this; beyond it, waiting would look like a hang. */
export const RETRY_AFTER_CAP_MS = 60_000

/** `250 ms`, `2 s`, `1.5 s`, `300 s`: a wait or an elapsed time in a message. */
export const formatWait = (millis: number): string =>
  millis < 1000 ? `${Math.round(millis)} ms` : `${Number((millis / 1000).toFixed(1))} s`

export const formatDuration = (duration: Duration.Duration): string => formatWait(Duration.toMillis(duration))

export interface RetryAfter {
  /** What to wait, capped. */
  readonly millis: number
  /** What the server asked for, when that was more than the cap. */
  readonly askedMillis?: number
}

/**
 * The wait a 429 or 503 asks for: `Retry-After` as delay-seconds or as an HTTP date, capped at
 * RETRY_AFTER_CAP_MS. Undefined for other statuses and for a missing or unreadable header.
 */
export const retryAfter = (
  status: number,
  headers: Readonly<Record<string, string | undefined>>,
  now = Date.now()
): RetryAfter | undefined => {
  if (status !== 429 && status !== 503) return undefined
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
  return millis > RETRY_AFTER_CAP_MS ? { millis: RETRY_AFTER_CAP_MS, askedMillis: millis } : { millis }
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
  const why = n.retryAfter === undefined
    ? ""
    : n.retryAfter.askedMillis === undefined
    ? " (Retry-After)"
    : ` (Retry-After asked for ${formatWait(n.retryAfter.askedMillis)}; capped)`
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

/**
 * Runs `send` up to `attempts` times while `retryable` says its failure may go away, waiting
 * `backoff` (doubled after each failure) or the server's Retry-After in between, and saying so on
 * stderr before each wait.
 */
export const retrying = <A, E, R>(
  send: Effect.Effect<A, E, R>,
  options: {
    readonly attempts: number
    readonly backoff: Duration.Duration
    readonly retryable: (error: E) => Retryable | undefined
  }
): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    let delay = options.backoff
    for (let attempt = 1;; attempt++) {
      const started = Date.now()
      const outcome = yield* Effect.result(send)
      if (outcome._tag === "Success") return outcome.success
      const failure = outcome.failure
      const retry = options.retryable(failure)
      if (retry === undefined || attempt >= options.attempts) return yield* Effect.fail(failure)
      const waitMillis = retry.retryAfter?.millis ?? Duration.toMillis(delay)
      yield* Console.error(retryWarning({
        reason: retry.reason,
        saysHowLong: retry.saysHowLong,
        attempt,
        attempts: options.attempts,
        elapsedMillis: Date.now() - started,
        waitMillis,
        retryAfter: retry.retryAfter
      }))
      yield* Effect.sleep(Duration.millis(waitMillis))
      delay = Duration.times(delay, 2)
    }
  })
