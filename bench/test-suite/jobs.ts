// `lait test` on a generated suite (default 200 files, the replayed kinds of ./index.ts) run three
// ways: `-j 1` (one file after another), `-j 8` (the default) and `--shard K/4` for K = 1..4 one
// after another (what four CI machines would each run, here on one). Checks that every run passes
// and that the four shards together ran exactly the suite, once each.
//
//   node_modules/.bin/bun bench/test-suite/jobs.ts [--files N] [--binary PATH]
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { defaultBinary, flag, requireBinary, spawnMeasured } from "../util.ts"
import { kinds } from "./index.ts"

const root = path.resolve(import.meta.dir, "../..")
const FILES = Number(flag("--files") ?? 200)
const binary = requireBinary(flag("--binary") ?? defaultBinary)
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`

const work = fs.mkdtempSync(path.join(os.tmpdir(), "lait-bench-jobs-"))
try {
  fs.cpSync(path.join(root, "test/fixtures/testing"), work, { recursive: true })
  fs.mkdirSync(path.join(work, "bench"))
  for (let i = 0; i < FILES; i++) {
    fs.writeFileSync(path.join(work, "bench", `case-${String(i).padStart(4, "0")}.yml`), kinds[i % kinds.length]!.testFile)
  }
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI_|LAIT_)/.test(k))),
    NO_COLOR: "1",
    HOME: work,
    XDG_CONFIG_HOME: path.join(work, ".config")
  } as Record<string, string>
  const lait = async (args: ReadonlyArray<string>) => {
    const r = await spawnMeasured([binary, "--no-env", "test", "--format", "json", ...args, "bench"], { cwd: work, env })
    if (r.code !== 0) throw new Error(`lait test ${args.join(" ")} exited ${r.code}`)
    const files = (JSON.parse(r.stdout) as Array<{ file: string; status: string }>)
    if (files.some((f) => f.status !== "pass")) throw new Error(`lait test ${args.join(" ")}: not every file passed`)
    return { ms: r.ms, files: files.map((f) => f.file) }
  }
  await lait(["-j", "8"]) // warm the file cache and the binary
  const one = await lait(["-j", "1"])
  const eight = await lait(["-j", "8"])
  const shards = []
  for (let k = 1; k <= 4; k++) shards.push(await lait(["--shard", `${k}/4`]))
  const union = shards.flatMap((s) => s.files)
  if (union.length !== FILES || new Set(union).size !== FILES) throw new Error("the shards did not cover the suite exactly once")

  const rows: Array<[string, string, string]> = [
    ["run", "files", "wall time"],
    ["`-j 1`", String(one.files.length), secs(one.ms)],
    ["`-j 8` (default)", String(eight.files.length), secs(eight.ms)],
    ...shards.map((s, i): [string, string, string] => [`\`--shard ${i + 1}/4\``, String(s.files.length), secs(s.ms)]),
    ["4 shards, sum", String(union.length), secs(shards.reduce((t, s) => t + s.ms, 0))],
    ["4 shards, longest (4 machines)", "", secs(Math.max(...shards.map((s) => s.ms)))]
  ]
  console.log(`| ${rows[0]!.join(" | ")} |`)
  console.log(`|---|---:|---:|`)
  for (const row of rows.slice(1)) console.log(`| ${row.join(" | ")} |`)
  console.log(`\n${FILES} files, ${os.cpus().length} CPUs; -j 8 / -j 1 = ${(eight.ms / one.ms).toFixed(2)}`)
} finally {
  fs.rmSync(work, { recursive: true, force: true })
}
