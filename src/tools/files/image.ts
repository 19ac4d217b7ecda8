/** Images Read returns as image blocks: the media type from the magic bytes (the extension as a fallback). */
export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp"

/** The API accepts about 5 MB of base64 per image; we do not downscale, so the raw file is capped. */
export const MAX_IMAGE_BYTES = 3_932_160

export const imageMediaType = (bytes: Uint8Array, extension: string): ImageMediaType => {
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return "image/png"
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg"
  if (bytes[0] === 0x47 && bytes[1] === 0x49 && bytes[2] === 0x46 && bytes[3] === 0x38) return "image/gif"
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP") return "image/webp"
  return extension === "png" ? "image/png" : extension === "gif" ? "image/gif" : extension === "webp" ? "image/webp" : "image/jpeg"
}

const ascii = (bytes: Uint8Array, from: number, to: number): string =>
  String.fromCharCode(...bytes.subarray(from, to))
