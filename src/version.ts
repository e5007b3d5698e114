import pkg from "../package.json" with { type: "json" }

// build.ts replaces these identifiers with string literals (Bun's `define`). Run from source (`bun
// src/main.ts`, Deno) they are not defined at all, and `typeof` of an undeclared name is "undefined"
// rather than a ReferenceError, hence the checks below.
declare const LAIT_BUILD_COMMIT: string
declare const LAIT_BUILD_DATE: string
declare const LAIT_BUILD_TARGET: string

export const VERSION: string = pkg.version

/** What `lait --version --json` prints: where this binary came from. */
export const BUILD_INFO = {
  name: "lait",
  version: VERSION,
  commit: typeof LAIT_BUILD_COMMIT === "string" ? LAIT_BUILD_COMMIT : "unknown",
  target: typeof LAIT_BUILD_TARGET === "string" ? LAIT_BUILD_TARGET : "unknown",
  build_date: typeof LAIT_BUILD_DATE === "string" ? LAIT_BUILD_DATE : "unknown"
} as const

/** The line `--version` prints: `lait 0.2.0 (abc1234)`, or the JSON object with `--json`. */
export const versionLine = (json: boolean): string =>
  json ? JSON.stringify(BUILD_INFO) : `lait ${VERSION} (${BUILD_INFO.commit})`
