// The yaml package words a few errors for JavaScript programmers: a second document names its own
// API (`YAML.parseAllDocuments()`), and deep nesting surfaces as the engine's stack overflow. Users
// get upstream's (serde_yaml's) wording instead, keeping the position. Kept free of the yaml import
// so the config loader can use it without loading the parser at start-up.

/** The one-line message of a yaml parse error, ending ` at line L, column C` when the parser said so. */
export const yamlErrorMessage = (error: { readonly code?: string; readonly message: string }): string => {
  const first = (error.message.split("\n")[0] ?? error.message).trim().replace(/:$/, "")
  const at = / at line \d+, column \d+$/.exec(first)?.[0] ?? ""
  if (error.code === "MULTIPLE_DOCS") {
    return `deserializing from YAML containing more than one document is not supported${at}`
  }
  if (/maximum call stack size exceeded/i.test(first)) {
    return `recursion limit exceeded: the YAML is nested too deeply${at}`
  }
  return first
}
