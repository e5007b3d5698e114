// The thread that evaluates jq (see jq.ts). jq-wasm runs a filter as one synchronous call, so a filter
// that never ends blocks whichever thread runs it: here that is this worker, and the main thread keeps
// its timers and Ctrl-C, and simply abandons the worker.
//
// This file only runs jq. Every rule (limits, exactly-one, when to replace the instance) lives in jq.ts
// and jqRunner.ts, which sends one request at a time and waits for its reply before sending the next.
import { type Jq, loadJq } from "jq-wasm/inline"
import { captureAborts } from "./jqAbort.ts"

export interface JqRequest {
  /** JSON texts, one per line: the globals the filter uses, then `.`. */
  readonly stdin: string
  readonly program: string
  /** Load a new instance before running (an earlier call may have corrupted this one). */
  readonly fresh: boolean
  /** Drop the instance after running (this call's input is deep enough to corrupt it). */
  readonly retire: boolean
  /**
   * jq's compiled WebAssembly module, sent with a worker's first request when the main thread has it
   * (jq.ts compiles it for syntax checks): instantiating it costs a fraction of compiling it again.
   */
  readonly module?: WebAssembly.Module
}

/**
 * Sent (once, before any request) when the main thread expects evaluations soon: the worker loads its
 * instance and runs jq once while the main thread is still busy, and does not reply.
 */
export interface JqWarmUp {
  readonly warmUp: true
  readonly module: WebAssembly.Module
}

export type JqReply =
  | {
    readonly kind: "result"
    readonly stdout: string
    readonly stderr: string
    readonly exitCode: number
    /** Counts the instances this worker has loaded, so the caller can tell when one was replaced. */
    readonly instance: number
    /** Whether the instance was made from the main thread's module (the worker compiled nothing). */
    readonly shared: boolean
  }
  /** The instance trapped (jq-wasm aborts through console.error and a thrown error); it is dropped. */
  | { readonly kind: "aborted"; readonly detail: ReadonlyArray<string>; readonly instance: number }
  | { readonly kind: "unavailable"; readonly message: string }

// One load at a time: a request can arrive while the warm-up's load is still under way.
let jq: Promise<Jq> | undefined
let instances = 0
let compiled: WebAssembly.Module | undefined
let shared = false

const instance = (): Promise<Jq> => {
  if (jq === undefined) {
    shared = compiled !== undefined
    const loading = loadJq(compiled === undefined ? {} : { wasmModule: compiled }).then((loaded) => {
      instances++
      return loaded
    })
    jq = loading
    // A failed load is retried by the next request, which reports its own failure.
    loading.catch(() => {
      if (jq === loading) jq = undefined
    })
  }
  return jq
}

const describe = (thrown: unknown): string => (thrown instanceof Error ? thrown.message : String(thrown))

// Compile-only (no input): runs jq's start-up and compiler once, so the first request's call is not
// the first through the wasm code.
const warmUp = async (message: JqWarmUp): Promise<void> => {
  compiled ??= message.module
  const current = await instance()
  const captured = captureAborts(() => current.raw("", ".", []))
  if (captured.value === undefined) jq = undefined
}

const evaluate = async (request: JqRequest): Promise<JqReply> => {
  compiled ??= request.module
  if (request.fresh) jq = undefined
  let current: Jq
  try {
    current = await instance()
  } catch (thrown) {
    return { kind: "unavailable", message: describe(thrown) }
  }
  const captured = captureAborts(() => current.raw(request.stdin, request.program, ["-n", "-c"]))
  if (captured.value === undefined) {
    jq = undefined
    return { kind: "aborted", detail: [...captured.printed, describe(captured.thrown)], instance: instances }
  }
  if (request.retire) jq = undefined
  const result = captured.value
  return {
    kind: "result",
    stdout: result.stdout,
    stderr: result.stderr,
    exitCode: result.exitCode,
    instance: instances,
    shared
  }
}

// Registered before anything is awaited: a message that arrives while the module is still loading
// would otherwise find no listener and be lost.
addEventListener("message", (event) => {
  const message = (event as MessageEvent<JqRequest | JqWarmUp>).data
  if ("warmUp" in message) void warmUp(message).catch(() => undefined)
  else void evaluate(message).then((reply) => postMessage(reply))
})
