// What kind of lait file a path holds, decided by its content (its top-level keys), so workflows,
// tests, evals and configs can share a directory and a naming scheme. The name only decides when the
// content cannot: `.md` is an agent file, `lait.config.yml` (or `lait/config.yml`, the global file)
// is a config whatever keys it has, and `*.test.yml`/`*.eval.yml` name a file that does not parse.
// `lait lint` checks each file as the kind found here; `lait test DIR` skips the YAML files found to
// be another kind (docs/testing.md#which-files-run). Here, not in src/lint/, since both use it.
import * as nodePath from "node:path"
import { isMap, isScalar, parseDocument } from "yaml"

export type FileKind = "workflow" | "test" | "eval" | "agent" | "config"

/** How much of a file `opensList` needs. */
export const LIST_HEAD_BYTES = 4096

/**
 * Whether a YAML file, given its first LIST_HEAD_BYTES, holds a list: its first thing past comments and a
 * `---` opens one (`- ` or `[`). No lait file is a list; an eval's cases file is.
 */
export const opensList = (head: string): boolean => {
  for (const raw of head.split("\n")) {
    const line = raw.trim()
    if (line === "" || line.startsWith("#") || line === "---") continue
    return line === "-" || line.startsWith("- ") || line.startsWith("[")
  }
  return false
}

/** Keys only a workflow has; the first three settle it on their own. */
const WORKFLOW_DEFINING = ["steps", "nodes", "version"]
const WORKFLOW_ONLY = ["name", "description", "inputs", "input_schema", "output", "timeout", "schemas"]
const EVAL_DEFINING = ["target", "targets", "cases", "default_assert"]
const TEST_DEFINING = ["replay", "assert", "workflow", "input"]
/** Config keys a workflow does not also have (`default`, `models`, `agents` are shared). */
const CONFIG_ONLY = [
  "base_url",
  "api_key",
  "api_key_cmd",
  "mcp_servers",
  "skills",
  "prompts",
  "workflows",
  "tool_policy",
  "tools",
  "jev"
]

const hasYamlExtension = (name: string): boolean => name.endsWith(".yml") || name.endsWith(".yaml")

const byName = (path: string): FileKind | undefined => {
  const base = nodePath.basename(path)
  if (base.endsWith(".md")) return "agent"
  if (base === "lait.config.yml") return "config"
  if (base === "config.yml" && nodePath.basename(nodePath.dirname(nodePath.resolve(path))) === "lait") return "config"
  return undefined
}

const byNameHint = (path: string): FileKind => {
  const base = nodePath.basename(path)
  if (hasYamlExtension(base)) {
    const stem = base.replace(/\.ya?ml$/, "")
    if (stem.endsWith(".test")) return "test"
    if (stem.endsWith(".eval")) return "eval"
  }
  return "workflow"
}

/**
 * The kind the file's name or content settles, or undefined when neither does (it does not parse, is
 * not a mapping, or has none of the telling keys). `lait test DIR` skips only files settled as another
 * kind (docs/testing.md#which-files-run): a broken test file must still be reported, not skipped.
 */
export const recognizeKind = (path: string, text: string): FileKind | undefined => {
  const named = byName(path)
  if (named !== undefined) return named
  let keys: ReadonlyArray<string>
  try {
    const doc = parseDocument(text, { uniqueKeys: false })
    if (doc.errors.length > 0 || !isMap(doc.contents)) return undefined
    keys = doc.contents.items.flatMap((pair) => (isScalar(pair.key) ? [String(pair.key.value)] : []))
  } catch {
    return undefined
  }
  const has = (list: ReadonlyArray<string>) => list.some((k) => keys.includes(k))
  if (has(WORKFLOW_DEFINING)) return "workflow"
  if (has(EVAL_DEFINING)) return "eval"
  if (has(TEST_DEFINING)) return "test"
  if (has(CONFIG_ONLY)) return "config"
  if (has(WORKFLOW_ONLY)) return "workflow"
  return undefined
}

export const detectKind = (path: string, text: string): FileKind => recognizeKind(path, text) ?? byNameHint(path)
