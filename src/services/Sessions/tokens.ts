/**
 * Bearer tokens: a session's token is made at creation, shown once, and stored only as a hash.
 * Comparisons take the same time whatever the token.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"

export const newSessionToken = (): string => `tgs_${randomBytes(32).toString("base64url")}`

export const hashToken = (token: string): string => createHash("sha256").update(token, "utf8").digest("hex")

/** True when `token` hashes to `hash` (both compared as fixed-size digests). */
export const tokenMatches = (token: string | undefined, hash: string): boolean => {
  if (token === undefined || token === "" || !/^[0-9a-f]{64}$/.test(hash)) return false
  return timingSafeEqual(Buffer.from(hashToken(token), "hex"), Buffer.from(hash, "hex"))
}

/** True when two secrets are equal (compared as digests, so their lengths do not leak). */
export const sameSecret = (given: string | undefined, expected: string): boolean =>
  given !== undefined && given !== "" && tokenMatches(given, hashToken(expected))
