// A shutdown signal in lait's first tens of milliseconds, while the entry module's imports are still
// being evaluated, would meet the default disposition and kill the process without its message, its
// cleanup or the documented exit code. main.ts imports this module first, so its handlers are in
// place before any heavy module loads; they only remember the signals, and main.ts replays them in
// order once its own handlers run. Nothing heavy may be imported here.

/** The signals that stop lait like a Ctrl-C: Ctrl-C itself, `kill`/docker/systemd/CI, a closed terminal. */
export const SHUTDOWN_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const
export type ShutdownSignal = (typeof SHUTDOWN_SIGNALS)[number]

const received: Array<ShutdownSignal> = []
const handlers = SHUTDOWN_SIGNALS.map((signal) => {
  const remember = (): void => {
    received.push(signal)
  }
  process.on(signal, remember)
  return [signal, remember] as const
})

/** Removes the early handlers and returns the signals they caught, oldest first. */
export const takeEarlySignals = (): ReadonlyArray<ShutdownSignal> => {
  for (const [signal, remember] of handlers) process.off(signal, remember)
  return received
}

/** Whether a shutdown signal has arrived yet (the handlers stay). */
export const earlySignalArrived = (): boolean => received.length > 0
