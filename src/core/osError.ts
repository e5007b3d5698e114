// OS errors in the words of strerror(3), as upstream (Rust's io::Error) prints them.
import * as os from "node:os"

/** The OS error code (`ENOENT`, ...) of an error, when it has one. */
export const errnoOf = (e: unknown): string | undefined =>
  typeof e === "object" && e !== null && "code" in e && typeof e.code === "string" ? e.code : undefined

const strerror: Record<string, string> = {
  EPERM: "Operation not permitted",
  ENOENT: "No such file or directory",
  EIO: "Input/output error",
  ENXIO: "No such device or address",
  E2BIG: "Argument list too long",
  ENOEXEC: "Exec format error",
  EBADF: "Bad file descriptor",
  EAGAIN: "Resource temporarily unavailable",
  EACCES: "Permission denied",
  EEXIST: "File exists",
  ENOTDIR: "Not a directory",
  EISDIR: "Is a directory",
  ETXTBSY: "Text file busy",
  EFBIG: "File too large",
  ENOSPC: "No space left on device",
  EROFS: "Read-only file system",
  EPIPE: "Broken pipe",
  ENAMETOOLONG: "File name too long",
  ELOOP: "Too many levels of symbolic links",
  EDQUOT: "Disk quota exceeded",
  EADDRINUSE: "Address already in use",
  EADDRNOTAVAIL: "Cannot assign requested address"
}

/** `No space left on device`: the reason alone, for lines that need no errno. */
export const osReason = (error: unknown): string => {
  const code = errnoOf(error)
  const text = code === undefined ? undefined : strerror[code]
  if (text !== undefined) return text
  return error instanceof Error ? error.message : String(error)
}

/**
 * `No such file or directory (os error 2)`. Used for the messages of `run` and `write` steps and
 * `-o`, whose wording follows upstream.
 */
export const osErrorText = (error: unknown): string => {
  const code = errnoOf(error)
  const errno = code === undefined ? undefined : (os.constants.errno as Record<string, number>)[code]
  const text = code === undefined ? undefined : strerror[code]
  if (text !== undefined && errno !== undefined) return `${text} (os error ${errno})`
  return error instanceof Error ? error.message : String(error)
}
