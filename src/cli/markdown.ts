// `--render`: Markdown made easier to read on a terminal with a few ANSI styles (headings and
// **bold** bold, `code` and fenced blocks cyan, the fence lines themselves dropped). Only for a TTY:
// the caller prints the text as it came anywhere else, so pipes and files get the model's Markdown.
const BOLD = "\u001b[1m"
const CYAN = "\u001b[36m"
const RESET = "\u001b[0m"

const inline = (line: string): string =>
  line
    .replace(/\*\*([^*]+)\*\*/g, `${BOLD}$1${RESET}`)
    .replace(/`([^`]+)`/g, `${CYAN}$1${RESET}`)

export const renderMarkdown = (text: string): string => {
  const out: Array<string> = []
  let fenced = false
  for (const line of text.split("\n")) {
    if (/^\s*```/.test(line)) {
      fenced = !fenced
      continue
    }
    if (fenced) out.push(`${CYAN}${line}${RESET}`)
    else if (/^#{1,6}\s/.test(line)) out.push(`${BOLD}${line.replace(/^#{1,6}\s+/, "")}${RESET}`)
    else out.push(inline(line))
  }
  return out.join("\n")
}
