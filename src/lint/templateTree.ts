// A template's parse tree for the lint checks that read one (refs.ts, unsetInput.ts, untrusted.ts):
// Handlebars' own, so comments, raw blocks and string literals are read as the renderer reads them.
import Handlebars from "handlebars"

/** The template's tree, or undefined when it does not parse (the loader reports its syntax). */
export const parseTemplate = (source: string): hbs.AST.Program | undefined => {
  try {
    return Handlebars.parse(source)
  } catch {
    return undefined
  }
}

/** Where a node's position (lines from 1, columns from 0) falls in `source`, as an offset. */
export const positionOffset = (source: string): (p: hbs.AST.Position) => number => {
  const lineStarts = [0]
  for (let i = 0; i < source.length; i++) if (source[i] === "\n") lineStarts.push(i + 1)
  return (p) => (lineStarts[p.line - 1] ?? 0) + p.column
}
