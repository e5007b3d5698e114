// A strict little XML 1.0 reader for checking the JUnit report in tests: elements, attributes (quoted,
// unique), text, the five predefined entities and numeric references, one root, a prolog. Anything
// malformed throws. No DTDs, CDATA or processing instructions besides the XML declaration.
export interface XmlElement {
  readonly name: string
  readonly attributes: Readonly<Record<string, string>>
  readonly children: ReadonlyArray<XmlElement>
  readonly text: string
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.:-]*/

const decodeEntities = (raw: string, where: number): string =>
  raw.replace(/&([^;]*);|&/g, (match, body: string | undefined) => {
    if (body === undefined) throw new Error(`bare '&' at ${where}`)
    const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'" }
    if (body in named) return named[body]!
    if (/^#[0-9]+$/.test(body)) return String.fromCodePoint(Number(body.slice(1)))
    if (/^#x[0-9a-fA-F]+$/.test(body)) return String.fromCodePoint(parseInt(body.slice(2), 16))
    throw new Error(`unknown entity '${match}' at ${where}`)
  })

export const parseXml = (text: string): XmlElement => {
  let i = 0
  if (text.startsWith("<?xml")) {
    const end = text.indexOf("?>")
    if (end < 0) throw new Error("unterminated XML declaration")
    i = end + 2
  }
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++
  }
  const element = (): XmlElement => {
    if (text[i] !== "<") throw new Error(`expected '<' at ${i}`)
    i++
    const name = NAME.exec(text.slice(i))?.[0]
    if (name === undefined) throw new Error(`expected an element name at ${i}`)
    i += name.length
    const attributes: Record<string, string> = {}
    for (;;) {
      skipSpace()
      if (text.startsWith("/>", i)) {
        i += 2
        return { name, attributes, children: [], text: "" }
      }
      if (text[i] === ">") {
        i++
        break
      }
      const attr = NAME.exec(text.slice(i))?.[0]
      if (attr === undefined) throw new Error(`expected an attribute at ${i}`)
      i += attr.length
      if (text[i] !== "=" || text[i + 1] !== "\"") throw new Error(`expected ="..." after ${attr} at ${i}`)
      const end = text.indexOf("\"", i + 2)
      if (end < 0) throw new Error("unterminated attribute")
      const value = text.slice(i + 2, end)
      if (value.includes("<")) throw new Error(`'<' in attribute ${attr}`)
      if (attr in attributes) throw new Error(`duplicate attribute ${attr}`)
      attributes[attr] = decodeEntities(value, i)
      i = end + 1
    }
    const children: Array<XmlElement> = []
    let content = ""
    for (;;) {
      const next = text.indexOf("<", i)
      if (next < 0) throw new Error(`unterminated element ${name}`)
      content += decodeEntities(text.slice(i, next), i)
      i = next
      if (text.startsWith("</", i)) {
        const close = `</${name}>`
        if (!text.startsWith(close, i)) throw new Error(`expected ${close} at ${i}`)
        i += close.length
        return { name, attributes, children, text: content }
      }
      children.push(element())
    }
  }
  skipSpace()
  const root = element()
  skipSpace()
  if (i !== text.length) throw new Error(`content after the root element at ${i}`)
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(text)) throw new Error("a character XML 1.0 does not allow")
  return root
}

export const childrenNamed = (element: XmlElement, name: string) => element.children.filter((c) => c.name === name)
