// An exclusive lock file that names its owner's process id (`lait run --resume` takes one per run, so
// two resumes of one run cannot both run its remaining steps). The file appears whole or not at all
// (written aside, then hard-linked into place, which fails when it exists), so a reader never sees an
// empty lock. A lock whose process is gone (a crash, SIGKILL) is stale and taken over. It is released
// by `release`, and by an exit handler for the ways out that skip finalizers (a second Ctrl-C).
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { errnoOf } from "../core/osError.ts"

export type PidLock =
  | { readonly _tag: "Acquired"; readonly release: () => void }
  | { readonly _tag: "Held"; readonly pid: number }

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return errnoOf(e) === "EPERM"
  }
}

const readOrUndefined = (path: string): string | undefined => {
  try {
    return fs.readFileSync(path, "utf8")
  } catch (e) {
    if (errnoOf(e) === "ENOENT") return undefined
    throw e
  }
}

const ownerOf = (text: string): number | undefined => {
  const pid = Number(text.trim())
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
}

const place = (path: string, content: string): boolean => {
  const aside = nodePath.join(nodePath.dirname(path), `.${nodePath.basename(path)}.${process.pid}.tmp`)
  fs.writeFileSync(aside, content, { mode: 0o600 })
  try {
    fs.linkSync(aside, path)
    return true
  } catch (e) {
    if (errnoOf(e) === "EEXIST") return false
    throw e
  } finally {
    fs.rmSync(aside, { force: true })
  }
}

/** Takes the lock at `path` (its directory must exist), or says which live process holds it. Throws OS errors. */
export const acquirePidLock = (path: string): PidLock => {
  const mine = `${process.pid}\n`
  for (let attempt = 0; attempt < 3; attempt++) {
    if (place(path, mine)) {
      let held = true
      const release = () => {
        if (!held) return
        held = false
        process.removeListener("exit", release)
        try {
          if (readOrUndefined(path) === mine) fs.unlinkSync(path)
        } catch {
          // Gone already, or unreadable: a later resume reports what it finds.
        }
      }
      process.on("exit", release)
      return { _tag: "Acquired", release }
    }
    const found = readOrUndefined(path)
    if (found === undefined) continue
    const owner = ownerOf(found)
    if (owner !== undefined && alive(owner)) return { _tag: "Held", pid: owner }
    // Stale: removed only while it still holds what was read, so a lock another process took over
    // in the meantime stays.
    if (readOrUndefined(path) === found) fs.rmSync(path, { force: true })
  }
  const owner = ownerOf(readOrUndefined(path) ?? "")
  return { _tag: "Held", pid: owner ?? 0 }
}
