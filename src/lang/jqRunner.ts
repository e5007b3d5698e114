// The evaluating worker's client (jq.ts explains why jq runs in a Worker): one request at a time in
// arrival order, an interrupted evaluation abandons its worker and the queue moves on to a new one,
// and the evaluating instance is replaced after RUNNER_CALL_BUDGET calls or when jq.ts says so.
import { Effect } from "effect"
import { JqError } from "./languageErrors.ts"
import type { Json } from "../core/json.ts"
import type { JqReply, JqRequest, JqWarmUp } from "./jqWorker.ts"

/**
 * jq-wasm leaks one of its 4096 virtual file descriptors on every call whose input holds a string,
 * and fails every later call with "Could not open file /dev/stdin: No file descriptors available":
 * the evaluating instance is replaced well before that.
 */
export const RUNNER_CALL_BUDGET = 2048

/** What jq.ts sends: everything but whether the instance must be fresh, which is decided here. */
export type RunnerRequest = Omit<JqRequest, "fresh" | "module">

interface Job {
  readonly request: RunnerRequest
  /**
   * Called once, synchronously in the message handler, so that its verdict on the instance
   * (`freshNext`) is in place before the next request is sent.
   */
  readonly settle: (reply: JqReply | JqError) => void
}

let worker: Worker | undefined
/** Workers started so far; names the current one in `jqEngineState`. */
let workersStarted = 0
/** Whether the current worker has replied at least once, i.e. it did load. */
let workerAnswered = false
let running: Job | undefined
const queue: Array<Job> = []
/** The next request must run on a new instance: the last one saw a value deep enough to corrupt it. */
let freshNext = false
let instanceSeen: number | undefined
let instanceCalls = 0
let lastIdentity: string | undefined
let lastShared = false
/** jq's compiled module, from jq.ts; each new worker gets it with its first request. */
let sharedModule: WebAssembly.Module | undefined
/** Whether the current worker was sent the module (or cannot be: the runtime does not clone modules). */
let moduleSent = false

/** Hands the main thread's compiled jq module to the workers, which then do not compile their own. */
export const shareJqModule = (module: WebAssembly.Module): void => {
  sharedModule ??= module
}

// In the compiled binary every module shares the entry's URL (`…/$bunfs/root/lait`) and build.ts embeds
// this worker as a second entrypoint rooted, like the entry, at src/: it sits at lang/jqWorker.ts
// beside it. From source, it sits beside this file.
const workerUrl = (): string =>
  import.meta.url.endsWith("/lang/jqRunner.ts")
    ? new URL("./jqWorker.ts", import.meta.url).href
    : new URL("./lang/jqWorker.ts", import.meta.url).href

// Bun's extension; Deno's workers have neither (there, lait's explicit exit ends an idle worker).
const setReferenced = (target: Worker, referenced: boolean): void => {
  const handle = target as { ref?: () => void; unref?: () => void }
  if (referenced) handle.ref?.()
  else handle.unref?.()
}

const startWorker = (): Worker => {
  // `type: "module"`: Deno supports no other kind (Bun ignores it).
  const started = new Worker(workerUrl(), { type: "module" })
  workersStarted++
  workerAnswered = false
  instanceSeen = undefined
  instanceCalls = 0
  freshNext = false
  moduleSent = false
  // Referenced only while an evaluation is in flight: an idle worker must not keep lait alive.
  setReferenced(started, false)
  started.addEventListener("message", (event) => {
    if (started === worker) onReply((event as MessageEvent<JqReply>).data)
  })
  started.addEventListener("error", (event) => {
    event.preventDefault()
    if (started === worker) onBroken((event as ErrorEvent).message)
  })
  started.addEventListener("close", () => {
    if (started === worker) onBroken("its thread exited")
  })
  return started
}

/**
 * Starts the evaluating worker ahead of its first request, with the shared module, so that the
 * thread's start, the instance and jq's first run overlap what the main thread does until then.
 * Does nothing once a worker exists or without the module (the first request then starts one).
 */
export const warmWorker = (): void => {
  if (worker !== undefined || sharedModule === undefined) return
  let started: Worker
  try {
    started = startWorker()
  } catch {
    return // the first request tries again, and reports the failure
  }
  try {
    started.postMessage({ warmUp: true, module: sharedModule } satisfies JqWarmUp)
  } catch {
    // A runtime that cannot clone a WebAssembly.Module: the first request starts a worker as before.
    started.terminate()
    return
  }
  worker = started
  moduleSent = true
}

const abandonWorker = (): void => {
  const abandoned = worker
  worker = undefined
  if (abandoned === undefined) return
  setReferenced(abandoned, false)
  abandoned.terminate()
}

const pump = (): void => {
  if (running !== undefined) return
  const job = queue.shift()
  if (job === undefined) return
  try {
    worker ??= startWorker()
  } catch (cause) {
    job.settle(new JqError({ reason: { _tag: "EngineUnavailable", cause } }))
    return pump()
  }
  running = job
  setReferenced(worker, true)
  const request: JqRequest = { ...job.request, fresh: freshNext }
  if (!moduleSent && sharedModule !== undefined) {
    moduleSent = true
    try {
      worker.postMessage({ ...request, module: sharedModule } satisfies JqRequest)
    } catch {
      // A runtime that cannot clone a WebAssembly.Module: the worker compiles its own.
      worker.postMessage(request)
    }
  } else worker.postMessage(request)
  freshNext = false
}

const settleAndContinue = (job: Job, reply: JqReply | JqError): void => {
  try {
    job.settle(reply)
  } finally {
    // `settle` may already have queued and sent the caller's next evaluation.
    pump()
    if (running === undefined && worker !== undefined) setReferenced(worker, false)
  }
}

const onReply = (reply: JqReply): void => {
  const job = running
  if (job === undefined) return
  running = undefined
  workerAnswered = true
  if (reply.kind !== "unavailable") {
    lastIdentity = `${workersStarted}.${reply.instance}`
    if (reply.kind === "result") lastShared = reply.shared
    if (reply.instance !== instanceSeen) {
      instanceSeen = reply.instance
      instanceCalls = 0
    }
    // A trap already cost the worker its instance; the budget is counted per instance.
    if (reply.kind === "result" && ++instanceCalls >= RUNNER_CALL_BUDGET) freshNext = true
  }
  settleAndContinue(job, reply)
}

// The worker failed to load (e.g. its module is missing) or died: only the evaluation it was running
// fails; the queue moves on to a new worker.
const onBroken = (detail: string): void => {
  const job = running
  running = undefined
  const loaded = workerAnswered
  abandonWorker()
  const error = new JqError({
    reason: { _tag: loaded ? "EngineStopped" : "EngineUnavailable", cause: new Error(detail) }
  })
  if (job !== undefined) settleAndContinue(job, error)
  else pump()
}

const cancel = (job: Job): void => {
  const queued = queue.indexOf(job)
  if (queued >= 0) {
    queue.splice(queued, 1)
    return
  }
  if (running !== job) return
  // The evaluation may never end, and a worker cannot be told to stop one: replace the worker.
  running = undefined
  abandonWorker()
  pump()
}

/**
 * For tests: how many evaluating workers this process has started, `<worker>.<instance>` of the jq
 * instance that ran the last evaluation (undefined before the first), which changes on recycling, and
 * whether that instance was made from the main thread's compiled module.
 */
export const jqEngineState = (): {
  readonly workersStarted: number
  readonly lastInstance: string | undefined
  readonly lastShared: boolean
} => ({
  workersStarted,
  lastInstance: lastIdentity,
  lastShared
})

/** The next evaluation runs on a new instance: the last one saw a value deep enough to corrupt it. */
export const retireInstance = (): void => {
  freshNext = true
}

export type Outcome = ReadonlyArray<Json> | JqError

/**
 * Queues one evaluation and waits for its reply; `finish` turns the reply into values or an error
 * before the next request is sent. Interrupting the wait cancels the evaluation.
 */
export const inWorker = (
  request: RunnerRequest,
  finish: (reply: JqReply) => Outcome
): Effect.Effect<ReadonlyArray<Json>, JqError> =>
  Effect.callback<ReadonlyArray<Json>, JqError>((resume) => {
    const job: Job = {
      request,
      settle: (reply) => {
        const outcome = reply instanceof JqError ? reply : finish(reply)
        resume(outcome instanceof JqError ? Effect.fail(outcome) : Effect.succeed(outcome))
      }
    }
    queue.push(job)
    pump()
    return Effect.sync(() => cancel(job))
  })
