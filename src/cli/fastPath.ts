// `lait --version` and `lait --help` answered before the command tree, Effect and every command's
// modules are loaded: scripts and `make` loops call them, and loading everything costs several times
// a bare Bun program. Only the exact one-argument forms are answered here; anything else (another
// flag, a subcommand's help, `--version --json`) goes through effect/cli as before.
//
// The root help text is rendered at build time from the real command tree by effect/cli itself
// (src/cli/rootHelp.ts, baked in by build.ts), so it cannot drift from what the slow path prints;
// test/e2e/fast-path.test.ts compares the two. Without a build (`bun src/main.ts`) help is not baked
// and takes the slow path.
import { osReason } from "../core/osError.ts"
import { stdoutIsTerminal, writeSync } from "../platform/rawStdout.ts"
import { versionLine } from "../version.ts"

/** The root help as effect/cli prints it, without and with colour; set by build.ts's `define`. */
declare const LAIT_ROOT_HELP: { readonly plain: string; readonly color: string } | undefined

const bakedHelp = typeof LAIT_ROOT_HELP === "undefined" ? undefined : LAIT_ROOT_HELP

/**
 * The same colour rule as src/cli/output.ts's `useColor` (src/config/environment.ts's colorAllowed,
 * which the fast path may not load), without touching `process.stdout`.
 */
const colored = (env: Env): boolean => stdoutIsTerminal() && env["NO_COLOR"] === undefined && env["TERM"] !== "dumb"

/** The process environment, handed over by src/main.ts. */
type Env = Readonly<Record<string, string | undefined>>

/** What to print for `argv`, or undefined when the full CLI must handle it. */
export const fastAnswer = (argv: ReadonlyArray<string>, env: Env): (() => string) | undefined => {
  if (argv.length !== 1) return undefined
  const [arg] = argv
  if (arg === "--version" || arg === "-V") return () => `${versionLine(false)}\n`
  if ((arg === "--help" || arg === "-h") && bakedHelp !== undefined) {
    return () => `${colored(env) ? bakedHelp.color : bakedHelp.plain}\n`
  }
  return undefined
}

/** Prints the answer; the exit code, with the slow path's handling of a stdout that fails. */
export const printFastAnswer = (answer: () => string): number => {
  try {
    writeSync(1, answer())
    return 0
  } catch (error) {
    // The reader of a pipe went away: quiet, 141, like src/main.ts.
    if ((error as { code?: unknown }).code === "EPIPE") return 141
    try {
      writeSync(2, `lait: failed to write output: ${osReason(error)}\n`)
    } catch {
      // Nowhere left to say it; the exit code still does.
    }
    return 1
  }
}
