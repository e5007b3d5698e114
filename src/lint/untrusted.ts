// Templates whose rendered value stops being plain data: inside the script of `sh -c` (a `run:` step
// or a shell tool's `command`), a value holding a quote, `;` or `$(…)` runs as shell code; in a
// `write:` path, a value holding `/` or `..` would pick the directory (the engine refuses those at
// run time). Both are warnings: the value may well be trusted, but a model's answer is not.
import { parseTemplate, positionOffset } from "./templateTree.ts"

/** Shells whose `-c` takes a script (the argv's first element, by its base name). */
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"])

const baseName = (program: string): string => program.slice(program.lastIndexOf("/") + 1)

/** Where a shell's argv starts: after `env`, its options and its `NAME=value` assignments. */
const shellStart = (argv: ReadonlyArray<string>): number => {
  if (argv[0] === undefined || baseName(argv[0]) !== "env") return 0
  let i = 1
  while (i < argv.length && (argv[i]!.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[i]!))) i++
  return i
}

/**
 * The index of the script in an argv that runs a shell with `-c` (`sh -c S`, `bash -euc S`,
 * `/bin/sh -e -c S`, `env bash -c S`), or undefined. The arguments after the script are positional
 * parameters (`$0`, `$1`, …): values belong there, and are never warned about.
 */
export const shellScriptIndex = (argv: ReadonlyArray<string>): number | undefined => {
  const start = shellStart(argv)
  const program = argv[start]
  if (program === undefined || !SHELLS.has(baseName(program))) return undefined
  let command = false
  for (let i = start + 1; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--") return command && i + 1 < argv.length ? i + 1 : undefined
    if (/^[-+][A-Za-z]+$/.test(arg)) {
      if (arg.startsWith("-") && arg.includes("c")) command = true
      // `-o pipefail`, `-eo pipefail`, `-O extglob`: the option's value is the next argument.
      if (/[oO]$/.test(arg)) i++
      continue
    }
    if (arg.startsWith("--")) continue
    return command ? i : undefined
  }
  return undefined
}

type Mustache = hbs.AST.MustacheStatement

const mustaches = (program: hbs.AST.Program | undefined, into: Array<Mustache>): Array<Mustache> => {
  for (const node of program?.body ?? []) {
    if (node.type === "MustacheStatement") into.push(node as Mustache)
    else if (node.type === "BlockStatement") {
      mustaches((node as hbs.AST.BlockStatement).program, into)
      mustaches((node as hbs.AST.BlockStatement).inverse, into)
    }
  }
  return into
}

/** Every `{{…}}` that prints something, with its text as written; none when the source does not parse. */
const printing = (source: string): ReadonlyArray<{ readonly node: Mustache; readonly text: string }> => {
  if (!source.includes("{{")) return []
  const program = parseTemplate(source)
  if (program === undefined) return []
  const offset = positionOffset(source)
  return mustaches(program, []).map((node) => ({
    node,
    text: source.slice(offset(node.loc.start), offset(node.loc.end))
  }))
}

const headedBy = (node: Mustache, names: ReadonlyArray<string>): boolean => {
  const path = node.path
  return path.type === "PathExpression" && !(path as hbs.AST.PathExpression).data &&
    (path as hbs.AST.PathExpression).depth === 0 && names.includes((path as hbs.AST.PathExpression).original)
}

/** `{{ shq … }}` for a template as written: its expression, parenthesised when it calls a helper. */
const quotedForm = (node: Mustache, text: string): string => {
  const inner = text.replace(/^\{\{\{?[~&]?\s*/, "").replace(/\s*~?\}\}\}?$/, "")
  return `{{ shq ${node.params.length > 0 || (node.hash?.pairs.length ?? 0) > 0 ? `(${inner})` : inner} }}`
}

export interface ShellTemplate {
  /** Index of the script in the argv. */
  readonly index: number
  /** The shell as written (`sh`, `/bin/bash`). */
  readonly shell: string
  /** The first template in the script not wrapped in `shq`, as written. */
  readonly template: string
  readonly quoted: string
}

/** The first unquoted template in the `-c` script of `argv`, if it runs a shell that way. */
export const shellTemplate = (argv: ReadonlyArray<string>): ShellTemplate | undefined => {
  const index = shellScriptIndex(argv)
  if (index === undefined) return undefined
  const found = printing(argv[index]!).find((m) => !headedBy(m.node, ["shq"]))
  if (found === undefined) return undefined
  return { index, shell: argv[shellStart(argv)]!, template: found.text, quoted: quotedForm(found.node, found.text) }
}

export const shellTemplateMessage = (context: string, found: ShellTemplate): string =>
  `${context} puts the template '${found.template}' inside a '${found.shell} -c' script, where a value holding ` +
  `a quote, ';' or '$(…)' runs as shell code; quote it as '${found.quoted}' (or pass it after the script and use "$1")`

/** Paths whose value is a loop counter: never a directory, so never warned about. */
const COUNTERS = new Set(["loop.index", "@index"])

/** The first template of a `write:` path that prints a value other than a loop counter, as written. */
export const writePathTemplate = (path: string): string | undefined =>
  printing(path).find((m) =>
    !(m.node.params.length === 0 && m.node.path.type === "PathExpression" &&
      COUNTERS.has((m.node.path as hbs.AST.PathExpression).original))
  )?.text

export const writePathMessage = (context: string, template: string): string =>
  `${context} fills its 'write' path from the template '${template}': a value holding '/' or '..' is refused ` +
  "when the step runs, so keep templates to the file name and write the directories out"
