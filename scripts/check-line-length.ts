// CI check: no source line over 120 characters (dprint wraps code; it cannot wrap a long string or
// comment, so those are caught here). Usage: bun scripts/check-line-length.ts [DIR...] (default: src).
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"

const LIMIT = 120
const roots = process.argv.length > 2 ? process.argv.slice(2) : ["src"]

const files = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return files(path)
    return path.endsWith(".ts") ? [path] : []
  })

let over = 0
for (const file of roots.flatMap(files)) {
  readFileSync(file, "utf8").split("\n").forEach((line, i) => {
    if ([...line].length > LIMIT) {
      over++
      process.stderr.write(`${file}:${i + 1}: ${[...line].length} characters (limit ${LIMIT})\n`)
    }
  })
}
if (over > 0) {
  process.stderr.write(`check-line-length: ${over} line(s) over ${LIMIT} characters\n`)
  process.exit(1)
}
