// The shell tool both interop suites give the model: it echoes the city the model asked about.
export const ECHO_TOOL_CONFIG = [
  "tools:",
  "  echo:",
  "    command: [echo, 'weather for {{ input.text }}']",
  "    description: Echo",
  "    parameters: { type: object, required: [text], properties: { text: { type: string } } }"
].join("\n")
