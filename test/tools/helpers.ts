// Shared helpers for the tool-loop tests: running effects, reading errors as the CLI prints them,
// and checking processes through /proc.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit } from "effect"
import { primaryError, renderChain } from "../../src/core/errors.ts"
import { alive } from "../e2e/util.ts"
export { alive } from "../e2e/util.ts"

export const repoRoot = path.resolve(import.meta.dir, "../..")
export const bun = process.execPath
export const scriptedServer = path.join(repoRoot, "test/fixtures/mcp/scripted-server.ts")
export const everythingBin = path.join(repoRoot, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
export const filesystemBin = path.join(repoRoot, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")

export const tempDir = (prefix: string): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `lait-${prefix}-`)))

/** The failure of `effect` as `lait: …` would print it (without the prefix), with the error's tag. */
export const failureOf = async <A, E>(effect: Effect.Effect<A, E>): Promise<{ readonly message: string; readonly tag: string }> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) throw new Error(`expected a failure, got ${JSON.stringify(exit.value)}`)
  const error = primaryError(exit.cause) as { _tag?: string }
  return { message: renderChain(error), tag: error?._tag ?? "?" }
}

/** Live processes whose command line contains `marker`. */
export const processesWith = (marker: string): Array<number> => {
  const found: Array<number> = []
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8")
      if (cmdline.includes(marker) && alive(Number(entry))) found.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return found
}

export const waitFor = async (predicate: () => boolean, ms: number): Promise<boolean> => {
  const end = Date.now() + ms
  while (!predicate() && Date.now() < end) await Bun.sleep(25)
  return predicate()
}

export const pidsIn = (file: string): Array<number> =>
  fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map(Number) : []
