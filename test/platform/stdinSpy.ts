// For the tests that check whether code builds `process.stdin` (src/platform/lazyTerminal.ts,
// FileLoader's stdin): script text that replaces the getter with one noting its first use in `stream`.
export const stdinSpy = `
  let stream = false
  const own = Object.getOwnPropertyDescriptor(process, "stdin")
  Object.defineProperty(process, "stdin", {
    configurable: true,
    get() { stream = true; return own.get ? own.get.call(process) : own.value }
  })
`
