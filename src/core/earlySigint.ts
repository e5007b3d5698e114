// Ctrl-C in lait's first tens of milliseconds, while the entry module's imports are still being
// evaluated, would meet the default disposition and kill the process without the Ctrl-C message or
// the documented exit code. main.ts imports this module first, so its handler is in place before any
// heavy module loads; it only counts the signals, and main.ts replays them once its own handler runs.
let received = 0
const remember = (): void => {
  received++
}
process.on("SIGINT", remember)

/** Removes the early handler and returns how many Ctrl-Cs it caught. */
export const takeEarlySigints = (): number => {
  process.off("SIGINT", remember)
  return received
}
