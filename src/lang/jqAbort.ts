// Shared by jq.ts (syntax checks on the main thread) and jqWorker.ts (evaluations): kept free of
// imports so the worker loads nothing but jq-wasm and this.

export interface Captured<A> {
  readonly value?: A
  readonly thrown?: unknown
  /** What jq-wasm printed through console.error during the call. */
  readonly printed: ReadonlyArray<string>
}

/**
 * Runs one synchronous jq-wasm call. jq-wasm reports an abort (`Aborted(...)`, failed assertions)
 * through console.error; the call is synchronous, so swapping console.error for its duration captures
 * exactly that call's output.
 */
export const captureAborts = <A>(f: () => A): Captured<A> => {
  const printed: Array<string> = []
  const original = console.error
  console.error = (...args: Array<unknown>) => {
    printed.push(args.map(String).join(" "))
  }
  try {
    return { value: f(), printed }
  } catch (thrown) {
    return { thrown, printed }
  } finally {
    console.error = original
  }
}
