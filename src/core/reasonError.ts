// What every domain error class with a single `reason` (a tagged union) shares: its `message` is the
// reason described, its `cause` — what `renderChain` prints after the message — the reason's `detail`
// when it has one, unless the class says otherwise.
//
// These classes are `Data.TaggedError`s and their reasons plain TypeScript types, not Schemas: nothing
// decodes, encodes or validates an error (they are only ever rendered as text), and evaluating effect's
// Schema modules costs a few ms of every run that does not otherwise need them (bench/README.md, issue
// 24, round 9). src/model/ModelError.ts has Data classes of its own for its reasons.

/**
 * The union of tagged reasons described by a map from each `_tag` to its fields: `{ A: { x: string } }`
 * is `{ readonly _tag: "A"; readonly x: string }`. An optional field stays optional.
 */
export type TaggedUnion<M> = {
  [K in keyof M]: { readonly _tag: K } & { readonly [F in keyof M[K]]: M[K][F] }
}[keyof M]

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
