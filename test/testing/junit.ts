// Test helpers for JUnit XML: a small strict XML 1.0 parser (no DTDs, no namespaces — JUnit reports
// use neither) and a validator holding the rules of the JUnit report schema that CI systems read
// (the Ant/Jenkins `junit` XSD): which elements nest where, which attributes are allowed or required,
// and their types. Throws on anything outside it.

export interface XmlElement {
  readonly name: string
  readonly attributes: Readonly<Record<string, string>>
  readonly children: ReadonlyArray<XmlElement>
  readonly text: string
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*/
const INVALID_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/

const decodeEntities = (raw: string, where: string): string =>
  raw.replace(/&([^;]*);|&/g, (whole, body: string | undefined) => {
    if (body === undefined) throw new Error(`${where}: bare '&'`)
    if (body === "amp") return "&"
    if (body === "lt") return "<"
    if (body === "gt") return ">"
    if (body === "quot") return "\""
    if (body === "apos") return "'"
    const m = /^#(x[0-9A-Fa-f]+|[0-9]+)$/.exec(body)
    if (m === null) throw new Error(`${where}: unknown entity '${whole}'`)
    const code = m[1]!.startsWith("x") ? parseInt(m[1]!.slice(1), 16) : parseInt(m[1]!, 10)
    const ch = String.fromCodePoint(code)
    if (INVALID_CHAR.test(ch)) throw new Error(`${where}: character reference to an invalid character ${whole}`)
    return ch
  })

/** Parses a whole document: an optional `<?xml ...?>` declaration, then exactly one root element. */
export const parseXml = (text: string): XmlElement => {
  if (INVALID_CHAR.test(text)) throw new Error("the document contains a character XML 1.0 does not allow")
  let pos = 0
  const skipSpace = () => {
    while (pos < text.length && /\s/.test(text[pos]!)) pos++
  }
  const expect = (s: string) => {
    if (!text.startsWith(s, pos)) throw new Error(`expected '${s}' at offset ${pos}: ${JSON.stringify(text.slice(pos, pos + 30))}`)
    pos += s.length
  }
  if (text.startsWith("<?xml")) {
    const end = text.indexOf("?>")
    const decl = text.slice(0, end + 2)
    if (!/^<\?xml version="1\.0"( encoding="UTF-8")?\?>$/.test(decl)) throw new Error(`bad XML declaration ${decl}`)
    pos = end + 2
  }
  const element = (): XmlElement => {
    expect("<")
    const name = NAME.exec(text.slice(pos))?.[0]
    if (name === undefined) throw new Error(`bad element name at offset ${pos}`)
    pos += name.length
    const attributes: Record<string, string> = {}
    for (;;) {
      const before = pos
      skipSpace()
      if (text.startsWith("/>", pos)) {
        pos += 2
        return { name, attributes, children: [], text: "" }
      }
      if (text[pos] === ">") {
        pos++
        break
      }
      if (pos === before) throw new Error(`expected whitespace before an attribute at offset ${pos}`)
      const attr = NAME.exec(text.slice(pos))?.[0]
      if (attr === undefined) throw new Error(`bad attribute name at offset ${pos}`)
      pos += attr.length
      expect("=\"")
      const end = text.indexOf("\"", pos)
      if (end < 0) throw new Error("unterminated attribute value")
      const raw = text.slice(pos, end)
      if (raw.includes("<")) throw new Error(`'<' in the value of ${name}@${attr}`)
      if (attr in attributes) throw new Error(`duplicate attribute ${name}@${attr}`)
      attributes[attr] = decodeEntities(raw, `${name}@${attr}`)
      pos = end + 1
    }
    const children: Array<XmlElement> = []
    let content = ""
    for (;;) {
      const lt = text.indexOf("<", pos)
      if (lt < 0) throw new Error(`unclosed <${name}>`)
      content += decodeEntities(text.slice(pos, lt), `text of <${name}>`)
      pos = lt
      if (text.startsWith("</", pos)) {
        pos += 2
        expect(name)
        skipSpace()
        expect(">")
        return { name, attributes, children, text: content }
      }
      children.push(element())
    }
  }
  skipSpace()
  const root = element()
  skipSpace()
  if (pos !== text.length) throw new Error(`content after the root element at offset ${pos}`)
  return root
}

type AttrType = "string" | "count" | "decimal" | "dateTime"
interface ElementRule {
  readonly required: ReadonlyArray<string>
  readonly attributes: Readonly<Record<string, AttrType>>
  readonly children: Readonly<Record<string, { readonly max: number }>>
  /** Whether non-whitespace text may appear directly inside. */
  readonly text: boolean
}

const JUNIT: Readonly<Record<string, ElementRule>> = {
  testsuites: {
    required: [],
    attributes: { name: "string", tests: "count", failures: "count", errors: "count", disabled: "count", skipped: "count", time: "decimal", timestamp: "dateTime" },
    children: { testsuite: { max: Infinity } },
    text: false
  },
  testsuite: {
    required: ["name", "tests"],
    attributes: {
      name: "string", tests: "count", failures: "count", errors: "count", skipped: "count", disabled: "count",
      time: "decimal", timestamp: "dateTime", hostname: "string", id: "string", package: "string", file: "string"
    },
    children: { properties: { max: 1 }, testcase: { max: Infinity }, "system-out": { max: 1 }, "system-err": { max: 1 } },
    text: false
  },
  properties: { required: [], attributes: {}, children: { property: { max: Infinity } }, text: false },
  property: { required: ["name", "value"], attributes: { name: "string", value: "string" }, children: {}, text: false },
  testcase: {
    required: ["name"],
    attributes: { name: "string", classname: "string", time: "decimal", file: "string", line: "count", assertions: "count", status: "string" },
    children: { skipped: { max: 1 }, error: { max: Infinity }, failure: { max: Infinity }, "system-out": { max: Infinity }, "system-err": { max: Infinity } },
    text: false
  },
  failure: { required: [], attributes: { message: "string", type: "string" }, children: {}, text: true },
  error: { required: [], attributes: { message: "string", type: "string" }, children: {}, text: true },
  skipped: { required: [], attributes: { message: "string" }, children: {}, text: true },
  "system-out": { required: [], attributes: {}, children: {}, text: true },
  "system-err": { required: [], attributes: {}, children: {}, text: true }
}

const TYPES: Readonly<Record<AttrType, RegExp>> = {
  string: /^[\s\S]*$/,
  count: /^(0|[1-9][0-9]*)$/,
  decimal: /^-?[0-9]+(\.[0-9]+)?$/,
  dateTime: /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?$/
}

/** Checks `root` against the JUnit report schema; throws with the path of the first violation. */
export const validateJunit = (root: XmlElement): void => {
  if (root.name !== "testsuites" && root.name !== "testsuite") throw new Error(`root element <${root.name}> is not a JUnit report`)
  const visit = (el: XmlElement, where: string) => {
    const rule = JUNIT[el.name]
    if (rule === undefined) throw new Error(`${where}: unknown element <${el.name}>`)
    for (const required of rule.required) {
      if (!(required in el.attributes)) throw new Error(`${where}: missing required attribute '${required}'`)
    }
    for (const [name, value] of Object.entries(el.attributes)) {
      const type = rule.attributes[name]
      if (type === undefined) throw new Error(`${where}: attribute '${name}' is not allowed on <${el.name}>`)
      if (!TYPES[type].test(value)) throw new Error(`${where}@${name}: ${JSON.stringify(value)} is not a valid ${type}`)
    }
    if (!rule.text && el.text.trim() !== "") throw new Error(`${where}: text is not allowed in <${el.name}>`)
    const counts = new Map<string, number>()
    for (const child of el.children) {
      const allowed = rule.children[child.name]
      if (allowed === undefined) throw new Error(`${where}: <${child.name}> is not allowed in <${el.name}>`)
      counts.set(child.name, (counts.get(child.name) ?? 0) + 1)
      if (counts.get(child.name)! > allowed.max) throw new Error(`${where}: too many <${child.name}>`)
      visit(child, `${where}/${child.name}`)
    }
  }
  visit(root, root.name)
}
