// Attachments of a model request: text files as fenced blocks appended to the user text, PDFs as
// `file` parts (a data URL and the file's name, as the original lait sends them), images as
// `image_url` parts (a URL as given, a local file as a data URL). Shared by `prompt:`/`agent:` steps
// (their `files:`/`images:`, rendered first) and one-shot chat (`--file`/`--image`).
import { Effect } from "effect"
import * as nodePath from "node:path"
import { renderChain } from "../core/errors.ts"
import type { FileError } from "../core/fileErrors.ts"
import { StepError } from "./stepErrors.ts"
import type { ChatMessage, ContentPart } from "../model/types.ts"
import { FileLoader, type FileLoaderService, READ_LIMIT } from "../platform/FileLoader.ts"

const longestBacktickRun = (text: string): number => {
  let longest = 0
  let current = 0
  for (const ch of text) {
    current = ch === "`" ? current + 1 : 0
    if (current > longest) longest = current
  }
  return longest
}

/** A file as a fenced block named after its path, the fence wider than any backtick run inside. */
export const fencedBlock = (path: string, contents: string): string => {
  const f = "`".repeat(Math.max(longestBacktickRun(contents), 2) + 1)
  return `${f}${path}\n${contents}\n${f}`
}

const sniffImageMime = (bytes: Uint8Array, path: string): string | undefined => {
  const starts = (sig: ReadonlyArray<number>) => sig.every((b, i) => bytes[i] === b)
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png"
  if (starts([0xff, 0xd8, 0xff])) return "image/jpeg"
  const head = new TextDecoder().decode(bytes.subarray(0, 12))
  if (head.startsWith("GIF87a") || head.startsWith("GIF89a")) return "image/gif"
  if (head.startsWith("RIFF") && head.slice(8, 12) === "WEBP") return "image/webp"
  const ext = nodePath.extname(path).toLowerCase()
  return ({
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp"
  } as Record<string, string>)[ext]
}

/** A `files:`/`--file` path's bytes; a failure names the file as given, as the original lait does. */
const readAttachment = (loader: FileLoaderService, baseDir: string, path: string) =>
  loader.readBytes(nodePath.resolve(baseDir, path)).pipe(
    Effect.mapError((cause) => new StepError({ reason: { _tag: "FileRead", path, detail: cause.detail } }))
  )

export interface Attachments {
  readonly blocks: ReadonlyArray<string>
  /** The PDFs of `files`, in order. */
  readonly documents?: ReadonlyArray<ContentPart>
  readonly images: ReadonlyArray<ContentPart>
}

/** `%PDF-` first: a PDF's header, which no text file worth sending starts with. */
const isPdf = (bytes: Uint8Array): boolean => [0x25, 0x50, 0x44, 0x46, 0x2d].every((b, i) => bytes[i] === b)

/**
 * Reads `files` (UTF-8 text or PDF) and `images` (http(s) URLs or local paths) relative to `baseDir`. All
 * the local bytes share one 16 MiB budget, so a request never carries more than lait reads anywhere.
 */
export const loadAttachments = (
  files: ReadonlyArray<string>,
  images: ReadonlyArray<string>,
  baseDir: string
): Effect.Effect<Attachments, StepError | FileError, FileLoader> =>
  Effect.gen(function*() {
    const loader = yield* FileLoader
    let budget = READ_LIMIT
    const spend = (n: number) =>
      (budget -= n) < 0
        ? Effect.fail(new StepError({ reason: { _tag: "AttachmentsTooLarge", limit: READ_LIMIT } }))
        : Effect.void
    const blocks: Array<string> = []
    const documents: Array<ContentPart> = []
    for (const path of files) {
      const bytes = yield* readAttachment(loader, baseDir, path)
      yield* spend(bytes.length)
      if (isPdf(bytes)) {
        const file_data = `data:application/pdf;base64,${Buffer.from(bytes).toString("base64")}`
        documents.push({ type: "file", file: { file_data, filename: nodePath.basename(path) } })
        continue
      }
      const text = yield* Effect.try({
        try: () => new TextDecoder("utf-8", { fatal: true }).decode(bytes),
        catch: () => new StepError({ reason: { _tag: "AttachmentNotUtf8", path } })
      })
      blocks.push(fencedBlock(path, text))
    }
    const parts: Array<ContentPart> = []
    for (const value of images) {
      if (value.startsWith("http://") || value.startsWith("https://")) {
        parts.push({ type: "image_url", image_url: { url: value } })
        continue
      }
      const bytes = yield* loader.readBytes(nodePath.resolve(baseDir, value)).pipe(
        Effect.mapError((cause) =>
          new StepError({ reason: { _tag: "ImageRead", path: value, detail: renderChain(cause) } })
        )
      )
      yield* spend(bytes.length)
      const mime = sniffImageMime(bytes, value)
      if (mime === undefined) return yield* new StepError({ reason: { _tag: "ImageFormat", path: value } })
      const url = `data:${mime};base64,${Buffer.from(bytes).toString("base64")}`
      parts.push({ type: "image_url", image_url: { url } })
    }
    return { blocks, documents, images: parts }
  })

/**
 * The user message: the text, then the blocks after a blank line; content parts (the text, the PDFs,
 * the images) only when there are PDFs or images.
 */
export const userMessage = (text: string, attached: Attachments = { blocks: [], images: [] }): ChatMessage => {
  const full = attached.blocks.length === 0 ? text : `${text}\n\n${attached.blocks.join("\n\n")}`
  const parts = [...(attached.documents ?? []), ...attached.images]
  return parts.length === 0
    ? { role: "user", content: full }
    : { role: "user", content: [{ type: "text", text: full }, ...parts] }
}
