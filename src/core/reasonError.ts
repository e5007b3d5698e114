// The one shape of lait's domain errors: a tagged class with a single `reason` (a tagged union), made
// by `ReasonError`. Its `message` is the reason described, its `cause` — what `renderChain` prints after
// the message — the reason's `cause` or `detail` when it has one, unless the class says otherwise; a class
// whose errors are about a file points at it (`file`, `line`) for `lait lint`. A class adds to its body
// only what is its own (a `wholeText` for -v, a `transient` flag). Exit codes stay in core/errors.ts's
// table, keyed by `_tag`, so that core never imports a domain.
//
// These classes are `Data.TaggedError`s and their reasons plain TypeScript types, not Schemas: nothing
// decodes, encodes or validates an error (they are only ever rendered as text), and evaluating effect's
// Schema modules costs a few ms of every run that does not otherwise need them (bench/README.md, issue
// 24, round 9). src/model/ModelError.ts has Data classes of its own for its reasons.
import { type Cause, Data } from "effect"
import { locateError } from "./errors.ts"

/**
 * The union of tagged reasons described by a map from each `_tag` to its fields: `{ A: { x: string } }`
 * is `{ readonly _tag: "A"; readonly x: string }`. An optional field stays optional.
 */
export type TaggedUnion<M> = {
  [K in keyof M]: { readonly _tag: K } & { readonly [F in keyof M[K]]: M[K][F] }
}[keyof M]

/** Where an error about a file points: the file, and the problem's 1-based line when known. */
export interface Location {
  readonly file?: string | undefined
  readonly line?: number | undefined
}

export interface ReasonErrorSpec<Reason> {
  /** The one line the user reads for `reason`. */
  readonly describe: (reason: Reason) => string
  /**
   * What `renderChain` prints after the message; without it, the reason's own `cause` if it has one,
   * else its `detail`, if any.
   */
  readonly cause?: (reason: Reason) => unknown
  /** Where the error points (for `lait lint` and `errorLine`); without it, the class points nowhere. */
  readonly locate?: (reason: Reason) => Location | undefined
}

/** The instance of a `ReasonError` class. */
export type ReasonErrorInstance<Tag extends string, Reason> = Cause.YieldableError & {
  readonly _tag: Tag
  readonly reason: Reason
}

/** What an error made with `locate` adds: the file at fault and the problem's line, or undefined. */
export interface Located {
  readonly file: string | undefined
  readonly line: number | undefined
}

type ReasonErrorClass<Instance> = new(props: { readonly reason: Instance extends { reason: infer R } ? R : never }) =>
  Instance

/** A reason's own `cause` (another error) when it has one, else its `detail` (a clause of text). */
export const reasonCause = (reason: unknown): unknown =>
  typeof reason !== "object" || reason === null
    ? undefined
    : "cause" in reason
    ? reason.cause
    : "detail" in reason
    ? reason.detail
    : undefined

/**
 * The base class of a domain error tagged `tag` whose reasons `spec` describes:
 * `class ChatError extends ReasonError("ChatError", { describe }) {}`.
 */
export const ReasonError: {
  <const Tag extends string, Reason extends { readonly _tag: string }>(
    tag: Tag,
    spec: ReasonErrorSpec<Reason> & { readonly locate: (reason: Reason) => Location | undefined }
  ): ReasonErrorClass<ReasonErrorInstance<Tag, Reason> & Located>
  <const Tag extends string, Reason extends { readonly _tag: string }>(
    tag: Tag,
    spec: ReasonErrorSpec<Reason>
  ): ReasonErrorClass<ReasonErrorInstance<Tag, Reason>>
} = <Tag extends string, Reason extends { readonly _tag: string }>(tag: Tag, spec: ReasonErrorSpec<Reason>) => {
  const { describe, cause = reasonCause, locate } = spec
  return class extends Data.TaggedError(tag)<{ readonly reason: Reason }> {
    constructor(props: { readonly reason: Reason }) {
      super(props)
      if (locate !== undefined) {
        const at = locate(props.reason)
        locateError(this, at?.file, at?.line)
      }
    }

    /** Set by `locateError` for a class made with `locate`; the types say so only for those. */
    declare readonly file: string | undefined
    declare readonly line: number | undefined

    override get message(): string {
      return describe(this.reason)
    }

    override get cause(): unknown {
      return cause(this.reason)
    }
  }
}

/** The usual `cause`, except for the reasons whose message already shows their `detail`. */
export const causeExcept = <Reason extends { readonly _tag: string }>(
  ...shown: ReadonlyArray<Reason["_tag"]>
): (reason: Reason) => unknown =>
(reason) => shown.includes(reason._tag) ? undefined : reasonCause(reason)

/** A `cause` for a class whose messages already show everything. */
export const noCause = (): undefined => undefined
