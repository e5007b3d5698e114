// What every domain error class with a single `reason` (a tagged union) shares: its `message` is the
// reason described, its `cause` — what `renderChain` prints after the message — the reason's `detail`
// when it has one, unless the class says otherwise.
const detailOf = (reason: unknown): unknown =>
  typeof reason === "object" && reason !== null && "detail" in reason ? reason.detail : undefined

/**
 * Defines `message` and `cause` on the class's prototype, as getters: the class body would otherwise
 * repeat the same two getters in every error module.
 */
export const describeReasons = <Reason>(
  // oxlint-disable-next-line no-explicit-any -- a constructor of any arguments
  errorClass: abstract new(...args: any) => { readonly reason: Reason },
  describe: (reason: Reason) => string,
  cause: (reason: Reason) => unknown = detailOf
): void => {
  Object.defineProperties(errorClass.prototype, {
    message: {
      get(this: { readonly reason: Reason }) {
        return describe(this.reason)
      },
      configurable: true
    },
    cause: {
      get(this: { readonly reason: Reason }) {
        return cause(this.reason)
      },
      configurable: true
    }
  })
}
