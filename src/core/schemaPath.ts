// Paths into decoded documents (`models.cloud[0].provider`), shared by every loader that reports a
// schema issue against the YAML it came from. No YAML import here: config loading stays light.

export type PathSegment = PropertyKey

/** `models.cloud[0].provider` */
export const formatPath = (path: ReadonlyArray<PathSegment>): string => {
  let out = ""
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`
    else out += out === "" ? String(segment) : `.${String(segment)}`
  }
  return out
}

/** The value found by following `path` from `root`, or undefined. */
export const valueAtPath = (root: unknown, path: ReadonlyArray<PathSegment>): unknown => {
  let current = root
  for (const segment of path) {
    if (typeof current !== "object" || current === null) return undefined
    current = (current as Record<PropertyKey, unknown>)[segment]
  }
  return current
}

/** `a list`, `a mapping`, `a string`, ... for "expected X, got Y" messages about YAML values. */
export const describeYamlValue = (value: unknown): string => {
  if (value === null || value === undefined) return "null"
  if (Array.isArray(value)) return "a list"
  if (typeof value === "object") return "a mapping"
  return typeof value === "string" ? "a string" : typeof value === "number" ? "a number" : `a ${typeof value}`
}

/**
 * `message` about the value at `path` (`[alias, index, field]`) of a `models:` map, naming the model id
 * when the value is one of the definition's `default_*` sampling values: the original lait names the
 * model whose request a bad default would spoil (`... for model 'gpt-4o-mini'`).
 */
export const namingModelId = (models: unknown, path: ReadonlyArray<PathSegment>, message: string): string => {
  const [alias, index, field] = path
  if (path.length !== 3 || alias === undefined || typeof index !== "number") return message
  if (typeof field !== "string" || !field.startsWith("default_")) return message
  const id = valueAtPath(models, [alias, index, "model_id"])
  return typeof id === "string" && id.trim() !== "" ? `${message} for model '${id}'` : message
}
