// `lait cassettes ls DIR`: one line per cassette, oldest first — what a person needs to recognise a
// recording without opening it (its key prefix, when, which model, the first thing the user said).
import { escapeControls } from "../../core/terminalText.ts"
import type { ScannedCassette } from "./scan.ts"

export interface CassetteRow {
  readonly file: string
  readonly kind: "model" | "tool"
  /** The first 12 characters of the file name (the request key's, for a model cassette). */
  readonly key: string
  readonly recorded_at: string | null
  /** The model id, or the tool's name for a tool cassette. */
  readonly model: string | null
  /** The first user message (or a tool call's arguments), on one line, shortened. */
  readonly excerpt: string
}

const EXCERPT = 60

const oneLine = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > EXCERPT ? `${flat.slice(0, EXCERPT - 1)}…` : flat
}

const textOf = (content: unknown): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  return content
    .map((p) => {
      if (typeof p !== "object" || p === null) return "[image]"
      return typeof p.text === "string" ? p.text : p.type === "file" ? "[file]" : "[image]"
    })
    .join(" ")
}

const firstUserMessage = (request: Readonly<Record<string, unknown>> | undefined): string => {
  const messages = Array.isArray(request?.messages) ? request.messages : []
  const user = messages.find((m) => typeof m === "object" && m !== null && m.role === "user")
  return user === undefined ? "" : textOf(user.content)
}

const stringField = (value: Readonly<Record<string, unknown>>, ...names: ReadonlyArray<string>) => {
  for (const name of names) if (typeof value[name] === "string") return value[name]
  return undefined
}

export const cassetteRow = (c: ScannedCassette): CassetteRow => {
  const base = { file: c.path, kind: c.kind, key: c.name.replace(/\.json$/, "").slice(0, 12) }
  if (c.kind === "tool") {
    if (c.value.kind === "tool-list") {
      const server = stringField(c.value, "server")
      const count = Array.isArray(c.value.tools) ? c.value.tools.length : 0
      return { ...base, recorded_at: c.recordedAt ?? null, model: `list:${server ?? "?"}`, excerpt: `${count} tools` }
    }
    const args = c.value.arguments
    return {
      ...base,
      recorded_at: c.recordedAt ?? null,
      model: stringField(c.value, "tool") ?? null,
      excerpt: oneLine(args === undefined ? "" : typeof args === "string" ? args : JSON.stringify(args))
    }
  }
  const model = c.request === undefined ? undefined : stringField(c.request, "model_id")
  const excerpt = oneLine(firstUserMessage(c.request))
  return { ...base, recorded_at: c.recordedAt ?? null, model: model ?? null, excerpt }
}

/** Oldest first; files without a date first, then by name. */
export const cassetteRows = (cassettes: ReadonlyArray<ScannedCassette>): Array<CassetteRow> =>
  cassettes.map(cassetteRow).sort((a, b) =>
    (a.recorded_at ?? "").localeCompare(b.recorded_at ?? "") || a.file.localeCompare(b.file)
  )

/**
 * `<key>  <recorded_at>  <model>  <excerpt>`; a tool cassette's model column reads `tool:<name>`. The
 * excerpt is quoted as JSON; no control character of any column reaches the terminal raw.
 */
export const rowLine = (row: CassetteRow): string => {
  const model = row.kind === "tool" ? `tool:${row.model ?? "?"}` : row.model ?? "-"
  const excerpt = row.excerpt === "" ? "-" : JSON.stringify(row.excerpt)
  return escapeControls([row.key, row.recorded_at ?? "-", model, excerpt].join("  "))
}
