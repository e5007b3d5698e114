// `lait test` runs with JavaScriptCore's FTL tier (its optimising compiler of last resort) off: most
// of a long suite's peak memory is what the FTL compiler allocates, not what the suite keeps, and on
// two shared cores its threads slow the suite down (bench/README.md: issue 24 round 4, 500 files
// 125 → 113 MiB; issue 37, 3,000 files 145 → 121–127 MiB and 2–3× faster). JavaScriptCore reads that
// option from the environment only when the runtime starts, so the process replaces its own image
// once (execve: same pid, arguments, stdin and stdout, nothing has run yet) with the option set; the
// new image takes it out of its environment again, so that the commands, tools and servers a test
// starts do not inherit it. Elsewhere (Deno, Windows, no execve) lait runs untuned. `lait proxy`
// runs so too: its requests run the same code thousands of times, which the lower tiers already
// compile well, and FTL's compiles took the cores from the apps it answers (bench/README.md, issue
// 41: 1.89x → 1.55x the fixture server's time in alternating runs, resident set 82 → 74 MiB).
// `lait run` makes the compilers twenty times more reluctant (Bun.unsafe.setJITPolicy, the runtime's
// own means for a burst of start-up code) for its first half second, then restores the default: its
// start is code that runs once or a few times (module evaluation, the YAML parse, the code that Ajv
// and Handlebars generate and run once), which compiling does not pay back: the compiler threads
// compete with the run for the cores, and the main thread pays its own share of each compile. The
// replay of the release-notes example takes about half the CPU, a sixth less of it on the main thread
// (bench/README.md, issue 37: the replay start-up). Code that stays hot is still compiled (a
// 4,000-step file loads with no more CPU than at the default policy; a thousandfold policy made it
// slower), jq evaluates in its own worker, whose VM keeps the default policy, and after the first
// half second the thresholds are the default ones again.
// `lait eval` used to raise the JIT thresholds a thousandfold for its whole run: it earned nothing on
// the eval throughput row and made 10,000 runs at -j 32 about twice as slow (issue 37,
// bench/README.md), so it is gone.

import { standardStreamWasClosed } from "./files.ts"

/** The option each re-executed subcommand runs with (set to 0). */
const OPTIONS: ReadonlyMap<string, string> = new Map([["test", "BUN_JSC_useFTLJIT"], ["proxy", "BUN_JSC_useFTLJIT"]])
/** Set only across the exec: says the option was ours, not the user's. */
const MARK = "LAIT_JSC_TUNED"
/** How many times JavaScriptCore's tier-up thresholds are scaled while `lait run` starts, and how long. */
const RUN_START_JIT_POLICY = 20
const RUN_START_MS = 500
/** Options that say the user chose the compilers' tiers: lait then leaves the JIT policy alone. */
const TIER_OPTIONS = ["BUN_JSC_useJIT", "BUN_JSC_useBaselineJIT", "BUN_JSC_useDFGJIT", "BUN_JSC_useFTLJIT"] as const

interface JitPolicy {
  readonly unsafe?: { readonly setJITPolicy?: (scale: number) => void }
}

/** `lait run`'s start under the raised JIT policy, restored after RUN_START_MS (under a Bun that has it). */
const calmRunStart = (): void => {
  const unsafe = typeof Bun === "undefined" ? undefined : (Bun as JitPolicy).unsafe
  if (typeof unsafe?.setJITPolicy !== "function" || TIER_OPTIONS.some((name) => process.env[name] !== undefined)) return
  unsafe.setJITPolicy(RUN_START_JIT_POLICY)
  // Unreferenced: a run that ends sooner does not wait for it.
  setTimeout(() => unsafe.setJITPolicy?.(1), RUN_START_MS).unref()
}

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
 * return); for `lait run`, where the user chose no tier, raises the JIT policy for its start. `hold`
 * says whether a signal arrived already: then lait must handle it, not exec.
 */
export const tuneJsc = (args: ReadonlyArray<string>, hold: () => boolean): void => {
  const sub = subcommandOf(args)
  const option = sub === undefined ? undefined : OPTIONS.get(sub)
  if (process.env[MARK] !== undefined) {
    delete process.env[MARK]
    if (option !== undefined) delete process.env[option]
    return
  }
  if (sub === "run") return calmRunStart()
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
