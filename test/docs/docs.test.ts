// The user documentation is checked against lait, so an example that stops working fails the suite
// instead of misleading a reader:
//   - every YAML block in docs/*.md declares itself a complete file (`# file: PATH`) or a fragment;
//   - the complete files of each section are written to a directory of their own (with the support
//     files declared next to them) and `lait lint`, run in this process (docs/architecture.md#testing),
//     must accept them (exit 0);
//   - every `sh` command that runs lait on the bundled examples/ exits 0, run from a copy of the
//     repository root with `lait` on PATH meaning dist/lait;
//   - every relative link of docs/*.md and README.md reaches an existing file and heading.
// The conventions are the ones docs/README.md describes to authors.
import { beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { ensureBinary, makeTempDir, repoRoot, run, runCli } from "../e2e/util.ts"
import {
  type Block,
  extractBlocks,
  headingAnchors,
  relativeLinks,
  roleOf,
  runsBundledExample,
  shellCommands
} from "./markdown.ts"

const docsDir = path.join(repoRoot, "docs")
const docFiles = fs.readdirSync(docsDir).filter((f) => f.endsWith(".md")).sort()
const readDoc = (name: string) => fs.readFileSync(path.join(docsDir, name), "utf8")
const blocks: Array<Block> = docFiles.flatMap((name) => extractBlocks(`docs/${name}`, readDoc(name)))

interface FileEntry {
  readonly path: string
  readonly body: string
  readonly lint: boolean
  readonly where: string
}

interface Example {
  readonly name: string
  readonly files: ReadonlyArray<FileEntry>
}

/** What lint says when an example has no lait.config.yml to check registry names against. */
const NO_CONFIG_WARNING = /names were not checked because no lait\.config\.yml was found/

const where = (b: Block) => `${b.doc}:${b.line}`

/** The complete files of each section, in document order; a path declared twice in one section is an error. */
const examplesOf = (all: ReadonlyArray<Block>): { examples: Array<Example>; problems: Array<string> } => {
  const bySection = new Map<string, Array<FileEntry>>()
  const problems: Array<string> = []
  for (const block of all) {
    const role = roleOf(block)
    if (role.kind !== "file") continue
    const key = `${block.doc} § ${block.section}`
    const files = bySection.get(key) ?? []
    if (files.some((f) => f.path === role.path)) problems.push(`${where(block)}: '${role.path}' is declared twice in section '${block.section}'`)
    if (path.isAbsolute(role.path) || role.path.split("/").includes("..")) problems.push(`${where(block)}: '${role.path}' must stay inside the example`)
    files.push({ path: role.path, body: `${block.body}\n`, lint: role.lint, where: where(block) })
    bySection.set(key, files)
  }
  return { examples: [...bySection].map(([name, files]) => ({ name, files })), problems }
}

/** A home without lait configuration, so that nothing of the machine's own setup leaks in. */
const isolatedEnv = (home: string, extraPath?: string): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || /^(OPENAI_|LAIT_|BUN_|NODE_|npm_)/i.test(key)) continue
    env[key] = value
  }
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, "xdg"),
    NO_COLOR: "1",
    PATH: extraPath === undefined ? (env["PATH"] ?? "") : `${extraPath}${path.delimiter}${env["PATH"] ?? ""}`
  }
}

/** Writes an example's files to a fresh directory and lints the lait files among them. */
const lintExample = async (example: Example) => {
  const dir = makeTempDir("docs-example")
  try {
    for (const file of example.files) {
      const target = path.join(dir, file.path)
      fs.mkdirSync(path.dirname(target), { recursive: true })
      fs.writeFileSync(target, file.body)
    }
    const targets = example.files.filter((f) => f.lint).map((f) => f.path)
    if (targets.length === 0) return { code: 0, stdout: "", stderr: "", targets }
    const result = await runCli(["lint", ...targets], { cwd: dir, env: isolatedEnv(dir) })
    return { ...result, targets }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

let binary = ""
beforeAll(async () => {
  binary = await ensureBinary()
}, 300_000)

describe("docs/*.md code blocks", () => {
  test("every YAML block is a complete file or a marked fragment", () => {
    const unmarked = blocks.flatMap((b) => {
      const role = roleOf(b)
      return role.kind === "unmarked" ? [`${where(b)}: ${role.reason}`] : []
    })
    expect(unmarked).toEqual([])
    expect(examplesOf(blocks).problems).toEqual([])
  })

  const { examples } = examplesOf(blocks)

  test("there are complete examples to check", () => {
    // A change of convention that silently turned every example into a fragment must not pass.
    expect(examples.filter((e) => e.files.some((f) => f.lint)).length).toBeGreaterThanOrEqual(15)
  })

  for (const example of examples) {
    test(`lait lint accepts ${example.name}`, async () => {
      const result = await lintExample(example)
      const detail = `${example.files.map((f) => `${f.path} (${f.where})`).join(", ")}\n${result.stdout}${result.stderr}`
      expect({ code: result.code, detail }).toEqual({ code: 0, detail })
      // Every file linted was recognised and reported on.
      for (const target of result.targets) expect(result.stdout).toContain(target)
      // Warnings pass lint but would teach a mistake; only the one about a missing config is expected.
      const warnings = result.stdout.split("\n").filter((l) => l.includes("warning:") && !NO_CONFIG_WARNING.test(l))
      expect(warnings).toEqual([])
    }, 60_000)
  }
})

describe("shell examples on the bundled examples/", () => {
  const commands = blocks
    .filter((b) => b.lang === "sh" || b.lang === "bash" || b.lang === "shell")
    .flatMap((b) => shellCommands(b.body).filter(runsBundledExample).map((command) => ({ command, at: where(b) })))

  test("there are commands to run", () => {
    expect(commands.length).toBeGreaterThanOrEqual(8)
  })

  for (const { command, at } of commands) {
    test(`${at}: ${command}`, async () => {
      // A copy of the repository root: what the examples write stays out of the checkout.
      const root = makeTempDir("docs-sh")
      try {
        fs.cpSync(path.join(repoRoot, "examples"), path.join(root, "examples"), { recursive: true })
        // The example apps (examples/apps/) import the `openai` client, as an app would from its project.
        fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(root, "node_modules"))
        fs.mkdirSync(path.join(root, "dist"))
        fs.symlinkSync(binary, path.join(root, "dist", "lait"))
        fs.mkdirSync(path.join(root, "bin"))
        fs.symlinkSync(binary, path.join(root, "bin", "lait"))
        const result = await run(["bash", "-c", `set -o pipefail; ${command}`], {
          cwd: root,
          env: isolatedEnv(root, path.join(root, "bin")),
          timeoutMs: 60_000
        })
        const detail = `${result.stdout}${result.stderr}`
        expect({ code: result.code, detail }).toEqual({ code: 0, detail })
      } finally {
        fs.rmSync(root, { recursive: true, force: true })
      }
    }, 90_000)
  }
})

describe("links", () => {
  test("every relative link of docs/*.md and README.md reaches a file and, when it names one, a heading", () => {
    const sources = [...docFiles.map((f) => path.join(docsDir, f)), path.join(repoRoot, "README.md")]
    const broken: Array<string> = []
    for (const source of sources) {
      const rel = path.relative(repoRoot, source)
      for (const link of relativeLinks(rel, fs.readFileSync(source, "utf8"))) {
        const [file, anchor] = link.target.split("#", 2) as [string, string | undefined]
        const target = file === "" ? source : path.resolve(path.dirname(source), file)
        if (!fs.existsSync(target)) {
          broken.push(`${rel}:${link.line}: ${link.target} (no such file)`)
          continue
        }
        if (anchor !== undefined && target.endsWith(".md") && !headingAnchors(fs.readFileSync(target, "utf8")).has(anchor)) {
          broken.push(`${rel}:${link.line}: ${link.target} (no such heading)`)
        }
      }
    }
    expect(broken).toEqual([])
  })

  test("README.md links the documentation", () => {
    const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8")
    expect(readme.includes("](docs/README.md)")).toBe(true)
  })
})

describe("the checks themselves", () => {
  const broken = [
    "## A broken example",
    "",
    "```yaml",
    "# file: workflow.yml",
    "steps:",
    "  - prompt: {{ input }}",
    "    bogus: true",
    "```",
    "",
    "```yaml",
    "steps: []",
    "```"
  ].join("\n")

  test("a complete file that lait rejects fails its example", async () => {
    const found = extractBlocks("broken.md", broken)
    const { examples } = examplesOf(found)
    expect(examples).toHaveLength(1)
    const result = await lintExample(examples[0]!)
    expect(result.code).toBe(3)
  }, 60_000)

  test("an unmarked YAML block is reported", () => {
    const roles = extractBlocks("broken.md", broken).map(roleOf)
    expect(roles.map((r) => r.kind)).toEqual(["file", "unmarked"])
  })

  test("only lait commands on examples/ are executed", () => {
    expect(runsBundledExample("dist/lait test examples/tests/cases")).toBe(true)
    expect(runsBundledExample("echo x | lait run examples/workflows/hello.yml")).toBe(true)
    expect(runsBundledExample("env -u OPENAI_BASE_URL dist/lait test examples/tests/cases")).toBe(true)
    expect(runsBundledExample("lait run workflow.yml x")).toBe(false)
    expect(runsBundledExample("cat examples/tests/triage.yml")).toBe(false)
  })

  test("anchors follow GitHub's rules", () => {
    const anchors = headingAnchors("# `for_each`\n## `${VAR}` expansion\n## Exit codes\n## Exit codes\n```\n# not a heading\n```")
    expect([...anchors]).toEqual(["for_each", "var-expansion", "exit-codes", "exit-codes-1"])
  })
})
