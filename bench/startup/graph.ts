// Which modules a process evaluates before it can do anything: the static import closure of
// src/main.ts (everything reached only through `import()` is excluded, as it is evaluated on first
// use). Found with a code-splitting build, whose entry chunk and the chunks it imports statically
// hold exactly that closure. Used to keep heavy modules out of start-up (test/bench/startup-graph.test.ts).
//
//   bun bench/startup/graph.ts [--top N]     the largest start-up modules, by bytes of bundled output
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { repoRoot } from "../util.ts"

export interface StartupModule {
  /** Path relative to the repository, e.g. `src/cli/root.ts`, `node_modules/effect/dist/Schema.js`. */
  readonly path: string
  /** Bytes it contributes to the (unminified) bundle. */
  readonly bytes: number
  /** The runtime's built-in modules it imports statically (`node:crypto` → `crypto`). */
  readonly builtins: ReadonlyArray<string>
}

interface Metafile {
  readonly inputs: Record<
    string,
    { readonly imports: ReadonlyArray<{ readonly path: string; readonly kind: string; readonly external?: boolean }> }
  >
  readonly outputs: Record<
    string,
    {
      readonly inputs: Record<string, { readonly bytesInOutput: number }>
      readonly imports: ReadonlyArray<{ readonly path: string; readonly kind: string }>
      readonly entryPoint?: string
    }
  >
}

export const startupModules = async (entry = path.join(repoRoot, "src", "main.ts")): Promise<ReadonlyArray<StartupModule>> => {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-startup-graph-"))
  try {
    const result = await Bun.build({ entrypoints: [entry], target: "bun", format: "esm", splitting: true, outdir, metafile: true })
    if (!result.success || result.metafile === undefined) {
      throw new Error(`bundling ${entry} failed: ${result.logs.map(String).join("; ")}`)
    }
    const meta = (typeof result.metafile === "string" ? JSON.parse(result.metafile) : result.metafile) as Metafile
    const outputs = meta.outputs
    const byFile = new Map(Object.keys(outputs).map((k) => [path.basename(k), k]))
    const entryKey = Object.keys(outputs).find((k) => outputs[k]!.entryPoint !== undefined)
    if (entryKey === undefined) throw new Error("the metafile names no entry chunk")
    const seen = new Set<string>()
    const visit = (key: string) => {
      if (seen.has(key)) return
      seen.add(key)
      for (const imported of outputs[key]!.imports) {
        if (imported.kind !== "import-statement") continue
        const next = byFile.get(path.basename(imported.path))
        if (next !== undefined) visit(next)
      }
    }
    visit(entryKey)
    const modules = new Map<string, number>()
    const builtins = new Map<string, ReadonlyArray<string>>()
    for (const key of seen) {
      for (const [input, info] of Object.entries(outputs[key]!.inputs)) {
        const rel = path.relative(repoRoot, path.resolve(repoRoot, input))
        modules.set(rel, (modules.get(rel) ?? 0) + info.bytesInOutput)
        const imports = meta.inputs[input]?.imports ?? []
        builtins.set(rel, imports.filter((i) => i.external === true && i.kind === "import-statement").map((i) => i.path))
      }
    }
    return [...modules].map(([p, bytes]) => ({ path: p, bytes, builtins: builtins.get(p) ?? [] }))
      .sort((a, b) => b.bytes - a.bytes)
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const { flag } = await import("../util.ts")
  const top = Number(flag("--top") ?? 40)
  const modules = await startupModules()
  const total = modules.reduce((sum, m) => sum + m.bytes, 0)
  const byPackage = new Map<string, number>()
  for (const m of modules) {
    const pkg = m.path.startsWith("src/")
      ? "src"
      : m.path.replace(/^.*node_modules\/((?:@[^/]+\/)?[^/]+)\/(?:dist\/(?:esm\/)?)?([^/]+\/)?.*$/, (_, p: string, d?: string) =>
        d === undefined ? p : `${p}/${d.slice(0, -1)}`
      )
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + m.bytes)
  }
  const kib = (b: number) => `${(b / 1024).toFixed(1).padStart(7)} KiB`
  console.log(`${modules.length} modules evaluated at start-up, ${kib(total).trim()} of bundled code`)
  console.log("\nby package / folder:")
  for (const [pkg, bytes] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${kib(bytes)}  ${pkg}`)
  console.log(`\nlargest ${top} modules:`)
  for (const m of modules.slice(0, top)) console.log(`  ${kib(m.bytes)}  ${m.path}`)
}
