// Reading docs/*.md the way test/docs/docs.test.ts checks them: fenced code blocks with the section
// they sit in and what they declare themselves to be, shell command lines, links, and the anchors
// GitHub gives headings. The conventions are documented at the top of docs/README.md.

export interface Block {
  /** The Markdown file, as given. */
  readonly doc: string
  /** 1-based line of the opening fence. */
  readonly line: number
  /** The info string's first word, lower-cased (`yaml`, `sh`, `json`, ...). */
  readonly lang: string
  readonly body: string
  /** The nearest heading above the block: blocks of one section form one example. */
  readonly section: string
  /** `<!-- file: PATH -->` or `<!-- support: PATH -->` on the line right above the fence. */
  readonly comment: { readonly kind: "file" | "support"; readonly path: string } | undefined
}

export type Role =
  | { readonly kind: "file"; readonly path: string; readonly lint: boolean }
  | { readonly kind: "fragment" }
  | { readonly kind: "other" }
  | { readonly kind: "unmarked"; readonly reason: string }

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/
const MARKER_COMMENT = /^<!--\s*(file|support):\s*(\S+)\s*-->\s*$/

export const YAML_LANGS = new Set(["yaml", "yml"])
const LINTED_EXTENSIONS = [".yml", ".yaml", ".md"]

/** Every fenced block of `text`; headings inside blocks are not headings. */
export const extractBlocks = (doc: string, text: string): Array<Block> => {
  const lines = text.split("\n")
  const blocks: Array<Block> = []
  let section = "(top)"
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!)
    if (open === null) {
      const heading = HEADING.exec(lines[i]!)
      if (heading !== null) section = heading[2]!
      continue
    }
    const fence = open[2]!
    const body: Array<string> = []
    let j = i + 1
    while (j < lines.length && !lines[j]!.trim().startsWith(fence)) body.push(lines[j++]!)
    const marker = i > 0 ? MARKER_COMMENT.exec(lines[i - 1]!.trim()) : null
    blocks.push({
      doc,
      line: i + 1,
      lang: (open[3] ?? "").toLowerCase(),
      body: body.join("\n"),
      section,
      comment: marker === null ? undefined : { kind: marker[1] as "file" | "support", path: marker[2]! }
    })
    i = j
  }
  return blocks
}

const lintable = (path: string): boolean => LINTED_EXTENSIONS.some((ext) => path.endsWith(ext))

/**
 * What a block is. A YAML block must say it on its first line: `# file: PATH` (a complete file,
 * linted) or `# fragment` (an excerpt, skipped). Any block may instead carry `<!-- file: PATH -->`
 * (written; linted when it is .yml/.yaml/.md) or `<!-- support: PATH -->` (written, never linted) on
 * the line above its fence.
 */
export const roleOf = (block: Block): Role => {
  if (block.comment !== undefined) {
    const path = block.comment.path
    return { kind: "file", path, lint: block.comment.kind === "file" && lintable(path) }
  }
  if (!YAML_LANGS.has(block.lang)) return { kind: "other" }
  const first = block.body.split("\n")[0]!.trim()
  const file = /^#\s*file:\s*(\S+)\s*$/.exec(first)
  if (file !== null) return { kind: "file", path: file[1]!, lint: lintable(file[1]!) }
  if (/^#\s*fragment\b/.test(first)) return { kind: "fragment" }
  return { kind: "unmarked", reason: "a YAML block must start with '# file: PATH' or '# fragment'" }
}

/** Shell command lines of an `sh` block: comments dropped, `\` continuations joined. */
export const shellCommands = (body: string): Array<string> => {
  const out: Array<string> = []
  let pending = ""
  for (const raw of body.split("\n")) {
    const line = raw.trimEnd()
    if (pending === "" && (line.trim() === "" || line.trim().startsWith("#"))) continue
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `
      continue
    }
    out.push(`${pending}${line}`.trim())
    pending = ""
  }
  if (pending !== "") out.push(pending.trim())
  return out
}

/** A command that runs lait on the bundled examples: executed by the docs test. */
export const runsBundledExample = (command: string): boolean => {
  if (!command.includes("examples/")) return false
  // `lait ...` or `dist/lait ...`, possibly after `VAR=value` assignments or `env -u VAR`, or in a pipe.
  const start = /^(?:(?:[A-Za-z_][A-Za-z0-9_]*=\S*|env(?:\s+-u\s+\S+)*)\s+)*(?:dist\/)?lait\s/
  return start.test(command) || /\|\s*(?:dist\/)?lait\s/.test(command)
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes, `-N` for repeats. */
export const headingAnchors = (text: string): Set<string> => {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let inFence: string | undefined
  for (const line of text.split("\n")) {
    const fence = FENCE.exec(line)
    if (fence !== null) {
      if (inFence === undefined) inFence = fence[2]!
      else if (line.trim().startsWith(inFence)) inFence = undefined
      continue
    }
    if (inFence !== undefined) continue
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!)
    const heading = HEADING.exec(line)
    if (heading === null) continue
    const base = heading[2]!
      .replace(/<[^>]+>/g, "")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-")
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

export interface Link {
  readonly doc: string
  readonly line: number
  readonly target: string
}

/** Relative Markdown links outside code (`[text](target)`), external URLs left out. */
export const relativeLinks = (doc: string, text: string): Array<Link> => {
  const links: Array<Link> = []
  let inFence: string | undefined
  text.split("\n").forEach((line, index) => {
    const fence = FENCE.exec(line)
    if (fence !== null) {
      if (inFence === undefined) inFence = fence[2]!
      else if (line.trim().startsWith(inFence)) inFence = undefined
      return
    }
    if (inFence !== undefined) return
    const prose = line.replace(/`[^`]*`/g, "")
    for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
      links.push({ doc, line: index + 1, target })
    }
  })
  return links
}
