// `lait test` runs with JavaScriptCore's FTL tier (its optimising compiler of last resort) turned off:
// most of a long suite's peak memory is what the FTL compiler allocates, not what the suite keeps
// (bench/README.md, issue 24 round 4: 500 files 125 → 113 MiB, 3,000 files 165 → 140 MiB, no slower).
// JavaScriptCore reads its options from the environment only when the runtime starts, so the process
// replaces its own image once (execve: same pid, arguments, stdin and stdout, nothing has run yet) with
// the option set; the new image takes it out of its environment again, so that the commands, tools and
// servers a test starts do not inherit it. Elsewhere (Deno, Windows, no execve) lait runs untuned.

import { standardStreamWasClosed } from "./files.ts"

const OPTION = "BUN_JSC_useFTLJIT"
/** Set only across the exec: says the option was ours, not the user's. */
const MARK = "LAIT_JSC_TUNED"

interface Execve {
  readonly execve?: (file: string, args: ReadonlyArray<string>, env: Record<string, string | undefined>) => never
}

/**
 * Whether stdin, stdout and stderr are all open. The runtime puts /dev/null on a closed one, and the
 * exec would hand that on as if it were the user's: lait must report a closed stdout (docs/cli.md).
 */
const standardStreamsOpen = (): boolean => ([0, 1, 2] as const).every((fd) => !standardStreamWasClosed(fd))

/** The subcommand, as far as the entry can tell before the CLI loads: the first word not a flag. */
const subcommandOf = (args: ReadonlyArray<string>): string | undefined => args.find((arg) => !arg.startsWith("-"))

/**
 * Call first thing in the entry, before anything heavy loads. In the re-executed image, removes the
 * option and the mark from the environment; otherwise, for `lait test` under Bun on a POSIX system
 * where the user set no such option, replaces the process with itself under the option (does not
 * return). `hold` says whether a signal arrived already: then lait must handle it, not exec.
 */
export const tuneJsc = (args: ReadonlyArray<string>, hold: () => boolean): void => {
  if (process.env[MARK] !== undefined) {
    delete process.env[MARK]
    delete process.env[OPTION]
    return
  }
  if (subcommandOf(args) !== "test" || process.env[OPTION] !== undefined) return
  const execve = (process as Execve).execve
  if (typeof execve !== "function" || process.platform === "win32" || typeof Bun === "undefined") return
  // A compiled binary's argv[1] is its embedded entry (`/$bunfs/root/lait`), not an argument it was given.
  const entry = process.argv[1] ?? ""
  const compiled = entry.startsWith("/$bunfs/") || entry.includes("~BUN")
  const argv = compiled ? [process.argv[0] ?? process.execPath, ...args] : [...process.argv]
  if (hold() || !standardStreamsOpen()) return
  try {
    execve(process.execPath, argv, { ...process.env, [OPTION]: "0", [MARK]: "1" })
  } catch {
    // No exec after all (a sandbox, a vanished binary): the suite runs untuned.
  }
}
