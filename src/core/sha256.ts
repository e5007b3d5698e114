// SHA-256 of text, as lowercase hex. Bun's native hasher where there is one: evaluating node:crypto's
// module costs milliseconds, and a replayed run hashes only a few request keys. Elsewhere (Deno),
// node:crypto, fetched when first needed.
import type * as NodeCrypto from "node:crypto"

interface BunHasher {
  hash(algorithm: "sha256", data: string, encoding: "hex"): string
}

const BunCryptoHasher = (globalThis as { Bun?: { CryptoHasher: BunHasher } }).Bun?.CryptoHasher

/** Through node:crypto: what runtimes without Bun's hasher use. */
export const nodeSha256Hex = (text: string): string =>
  (process.getBuiltinModule("node:crypto") as typeof NodeCrypto).createHash("sha256").update(text).digest("hex")

export const sha256Hex = (text: string): string =>
  BunCryptoHasher !== undefined ? BunCryptoHasher.hash("sha256", text, "hex") : nodeSha256Hex(text)
