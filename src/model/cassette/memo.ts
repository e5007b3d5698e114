// Cassettes a replay layer has read, remembered while it lives: `lait proxy --replay` answers the same
// files thousands of times, and reading and decoding one again is most of a replayed answer's cost
// (bench/README.md, issue 41). A file is read again once its inode, size or modification time
// differ from when it was read (lait writes cassettes by rename, so a re-recording always does), and
// past a budget of text the ones read longest ago are forgotten, so a directory of many large
// cassettes costs no more memory than the budget. (Least recently read rather than used: moving an
// entry on every hit cost a replayed answer more than the rest of its lookup.)

/** What identifies one version of a file (a stat's fields): the same, same content as far as stat can tell. */
export interface FileVersion {
  readonly dev: number
  readonly ino: number
  readonly size: number
  readonly mtimeMs: number
}

const sameVersion = (a: FileVersion, b: FileVersion): boolean =>
  a.mtimeMs === b.mtimeMs && a.size === b.size && a.ino === b.ino && a.dev === b.dev

/** Remembered text per replay layer; enough for every cassette of a large suite. */
const MEMO_BUDGET_CHARS = 32 * 1024 * 1024

export interface CassetteMemo<A> {
  /** The value kept for this version of the file, if any. */
  readonly get: (path: string, version: FileVersion) => A | undefined
  /** Keeps `value`, decoded from `chars` characters of text, for this version of the file. */
  readonly set: (path: string, version: FileVersion, value: A, chars: number) => void
}

export const makeCassetteMemo = <A>(budgetChars: number = MEMO_BUDGET_CHARS): CassetteMemo<A> => {
  // A Map iterates in insertion order: the one read longest ago first.
  const kept = new Map<string, { readonly version: FileVersion; readonly value: A; readonly chars: number }>()
  let total = 0
  const forget = (path: string) => {
    const entry = kept.get(path)
    if (entry === undefined) return
    kept.delete(path)
    total -= entry.chars
  }
  return {
    get: (path, version) => {
      const entry = kept.get(path)
      if (entry === undefined || sameVersion(entry.version, version)) return entry?.value
      forget(path)
      return undefined
    },
    set: (path, version, value, chars) => {
      forget(path)
      if (chars > budgetChars) return
      const { dev, ino, size, mtimeMs } = version
      kept.set(path, { version: { dev, ino, size, mtimeMs }, value, chars })
      total += chars
      for (const [oldest] of kept) {
        if (total <= budgetChars) break
        forget(oldest)
      }
    }
  }
}
