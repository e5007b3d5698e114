// Sizes and times as messages show them. Its own module, with no imports: the errors that word a
// byte cap or a timeout (src/model/ModelError.ts) are loaded by every model client, and a replayed
// run must not load the HTTP code (src/model/ModelHttp.ts) to format a number.

const KIB = 1024
const MIB = 1024 * KIB
const GIB = 1024 * MIB

/** `16 MiB`, `512 KiB`, `1.5 MiB`, `1000 bytes`: sizes as people read them (two decimals at most). */
export const formatBytes = (bytes: number): string => {
  const unit = bytes >= GIB
    ? [GIB, "GiB"] as const
    : bytes >= MIB
    ? [MIB, "MiB"] as const
    : bytes >= KIB
    ? [KIB, "KiB"] as const
    : undefined
  if (unit === undefined) return `${bytes} ${bytes === 1 ? "byte" : "bytes"}`
  return `${Number((bytes / unit[0]).toFixed(2))} ${unit[1]}`
}

/** `250 ms`, `2 s`, `1.5 s`, `300 s`: a wait or an elapsed time in a message. */
export const formatWait = (millis: number): string =>
  millis < 1000 ? `${Math.round(millis)} ms` : `${Number((millis / 1000).toFixed(1))} s`
