// Two commands tune JavaScriptCore's compilers:
// - `lait test` runs with FTL (its optimising compiler of last resort) off: most of a long suite's
//   peak memory is what the FTL compiler allocates, not what the suite keeps (bench/README.md, issue
//   24 round 4: 500 files 125 → 113 MiB, 3,000 files 165 → 140 MiB, no slower). JavaScriptCore reads
//   that option from the environment only when the runtime starts, so the process replaces its own
//   image once (execve: same pid, arguments, stdin and stdout, nothing has run yet) with the option
//   set; the new image takes it out of its environment again, so that the commands, tools and servers
//   a test starts do not inherit it. Elsewhere (Deno, Windows, no execve) lait runs untuned.
// - `lait eval` makes the compilers a thousand times more reluctant (Bun.unsafe.setJITPolicy, from
//   the start): an eval's runs are request handling that waits on a model server, and compiling it
//   costs CPU on the compiler threads, competing for the machine's cores with the runs' own threads
//   and the requests', which the compiled code never earns back. Code hot enough to pass the raised
//   thresholds (a long computation in a run) is still compiled. It used to re-execute with the DFG
//   tier off, which cost a whole second start-up (bench/README.md, issue 24 round 10).

import { standardStreamWasClosed } from "./files.ts"

/** The option each re-executed subcommand runs with (set to 0). */
const OPTIONS: ReadonlyMap<string, string> = new Map([["test", "BUN_JSC_useFTLJIT"]])
/** How many times JavaScriptCore's tier-up thresholds are scaled in `lait eval`. */
const EVAL_JIT_POLICY = 1000
/** Options that say the user chose the compilers' tiers: lait then leaves them alone. */
const TIER_OPTIONS = ["BUN_JSC_useJIT", "BUN_JSC_useBaselineJIT", "BUN_JSC_useDFGJIT", "BUN_JSC_useFTLJIT"] as const
/** Set only across the exec: says the option was ours, not the user's. */
const MARK = "LAIT_JSC_TUNED"

interface Execve {
  readonly execve?: (file: string, args: ReadonlyArray<string>, env: Record<string, string | undefined>) => never
}

interface JitPolicy {
  readonly unsafe?: { readonly setJITPolicy?: (scale: number) => void }
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
 * return); for `lait eval` under a Bun that has it, where the user chose no tier, raises the JIT
 * policy. `hold` says whether a signal arrived already: then lait must handle it, not exec.
 */
export const tuneJsc = (args: ReadonlyArray<string>, hold: () => boolean): void => {
  const sub = subcommandOf(args)
  const option = sub === undefined ? undefined : OPTIONS.get(sub)
  if (process.env[MARK] !== undefined) {
    delete process.env[MARK]
    if (option !== undefined) delete process.env[option]
    return
  }
  if (sub === "eval") {
    const setJITPolicy = typeof Bun === "undefined" ? undefined : (Bun as JitPolicy).unsafe?.setJITPolicy
    if (typeof setJITPolicy === "function" && TIER_OPTIONS.every((name) => process.env[name] === undefined)) {
      setJITPolicy(EVAL_JIT_POLICY)
    }
    return
  }
  if (option === undefined || process.env[option] !== undefined) return
  const execve = (process as Execve).execve
  if (typeof execve !== "function" || process.platform === "win32" || typeof Bun === "undefined") return
  // A compiled binary's argv[1] is its embedded entry (`/$bunfs/root/lait`), not an argument it was given.
  const entry = process.argv[1] ?? ""
  const compiled = entry.startsWith("/$bunfs/") || entry.includes("~BUN")
  const argv = compiled ? [process.argv[0] ?? process.execPath, ...args] : [...process.argv]
  // From the sources, the runtime's own flags (a preload, --smol, --cpu-prof) are not in argv: the new
  // image would run without them. They must apply to the process that does the work, so it runs
  // untuned. A compiled binary gets its flags from BUN_OPTIONS, which the exec keeps.
  if (!compiled && process.execArgv.length > 0) return
  if (hold() || !standardStreamsOpen()) return
  try {
    execve(process.execPath, argv, { ...process.env, [option]: "0", [MARK]: "1" })
  } catch {
    // No exec after all (a sandbox, a vanished binary): the command runs untuned.
  }
}
