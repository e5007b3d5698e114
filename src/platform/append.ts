// Appending whole records to a file that others may read meanwhile (`lait serve --trace-file`).
import * as fs from "node:fs"

/**
 * Appends `data` to a regular file (made when missing) in one go. A reader never meets a torn line:
 * the writes are synchronous, so no interruption comes between them, and a write that fails part way
 * (a full disk) is cut back to where the file ended before.
 */
export const appendWholeSync = (path: string, data: string | Uint8Array): void => {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data
  const fd = fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, 0o666)
  try {
    const before = fs.fstatSync(fd).size
    try {
      for (let written = 0; written < bytes.length;) written += fs.writeSync(fd, bytes, written)
    } catch (error) {
      fs.ftruncateSync(fd, before)
      throw error
    }
  } finally {
    fs.closeSync(fd)
  }
}
