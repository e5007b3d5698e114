// --render's terminal styling of Markdown (used only when stdout is a TTY).
import { expect, test } from "bun:test"
import { renderMarkdown } from "../../src/cli/markdown.ts"

test("headings and **bold** become bold, `code` and fenced blocks cyan, fence lines are dropped", () => {
  expect(renderMarkdown("# Title\nSome **strong** and `x` here\n```ts\nconst a = 1\n```\nend")).toBe(
    "\u001b[1mTitle\u001b[0m\nSome \u001b[1mstrong\u001b[0m and \u001b[36mx\u001b[0m here\n" +
      "\u001b[36mconst a = 1\u001b[0m\nend"
  )
  expect(renderMarkdown("plain text\n\nwith a blank line")).toBe("plain text\n\nwith a blank line")
})
