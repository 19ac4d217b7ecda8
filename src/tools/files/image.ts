/**
 * Images Read returns as image blocks. The content decides, not the extension: a file whose bytes
 * are no PNG, JPEG, GIF or WebP is refused with what it looks like instead (a login page saved
 * under an image name is common), and one whose size cannot be read from its header is refused
 * too, as Claude Code 2.1.332 does (the API would reject either).
 */
export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp"

/** The API accepts about 5 MB of base64 per image; we do not downscale, so the raw file is capped. */
export const MAX_IMAGE_BYTES = 3_932_160

export interface SniffedImage {
  readonly mediaType: ImageMediaType
  /** Width and height from the header; undefined when the header does not say. */
  readonly size: { readonly width: number; readonly height: number } | undefined
}

const ascii = (bytes: Uint8Array, from: number, to: number): string => String.fromCharCode(...bytes.subarray(from, to))

/** The image type the magic bytes name; undefined when they name none of the four. */
export const imageMediaType = (bytes: Uint8Array): ImageMediaType | undefined => {
  if (bytes.length >= 8 && bytes[0] === 0x89 && ascii(bytes, 1, 8) === "PNG\r\n\x1a\n") return "image/png"
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg"
  if (ascii(bytes, 0, 4) === "GIF8") return "image/gif"
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP") return "image/webp"
  return undefined
}

const u16be = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!
const u16le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8)
const u24le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)
const u32be = (b: Uint8Array, at: number) =>
  ((b[at]! << 24) >>> 0) + (b[at + 1]! << 16) + (b[at + 2]! << 8) + b[at + 3]!

const pngSize = (
  b: Uint8Array
) => (b.length >= 24 && ascii(b, 12, 16) === "IHDR" ? { width: u32be(b, 16), height: u32be(b, 20) } : undefined)

const gifSize = (b: Uint8Array) => (b.length >= 10 ? { width: u16le(b, 6), height: u16le(b, 8) } : undefined)

/** The first start-of-frame segment (SOF0–SOF15 but DHT, JPG and DAC) gives the size. */
const jpegSize = (b: Uint8Array) => {
  let at = 2
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return undefined
    const marker = b[at + 1]!
    if (marker === 0xff) {
      at++
      continue
    }
    if (marker === 0xd9 || marker === 0xda) return undefined
    if (marker >= 0xd0 && marker <= 0xd7) {
      at += 2
      continue
    }
    const length = u16be(b, at + 2)
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return at + 9 <= b.length ? { width: u16be(b, at + 7), height: u16be(b, at + 5) } : undefined
    }
    at += 2 + length
  }
  return undefined
}

const webpSize = (b: Uint8Array) => {
  const chunk = ascii(b, 12, 16)
  if (chunk === "VP8X" && b.length >= 30) return { width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 }
  if (chunk === "VP8L" && b.length >= 25 && b[20] === 0x2f) {
    const bits = (b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24)) >>> 0
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 }
  }
  if (chunk === "VP8 " && b.length >= 30 && b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a) {
    return { width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff }
  }
  return undefined
}

export const sniffImage = (bytes: Uint8Array): SniffedImage | undefined => {
  const mediaType = imageMediaType(bytes)
  if (mediaType === undefined) return undefined
  const size = mediaType === "image/png"
    ? pngSize(bytes)
    : mediaType === "image/gif"
    ? gifSize(bytes)
    : mediaType === "image/jpeg"
    ? jpegSize(bytes)
    : webpSize(bytes)
  return { mediaType, size }
}

/** The first bytes as text, one character per byte, anything not printable ASCII as a dot. */
const preview = (bytes: Uint8Array): string =>
  Array.from(bytes.subarray(0, 24), (byte) => (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : ".")).join("")

/** What a file with an image extension holds instead of an image (Claude Code's words). */
export const detectedContent = (bytes: Uint8Array): string => {
  const head = Buffer.from(bytes.subarray(0, 64)).toString("latin1")
  const opening = head.replace(/^(?:\xef\xbb\xbf)?\s*/, "").toLowerCase()
  if (opening.startsWith("<!doctype html") || opening.startsWith("<html")) {
    return `HTML document (starts with "${preview(bytes)}")`
  }
  if (opening.startsWith("<?xml") || opening.startsWith("<svg")) {
    return `XML/SVG document (starts with "${preview(bytes)}")`
  }
  if (head.startsWith("{") || head.startsWith("[")) return `JSON/text (starts with "${preview(bytes)}")`
  if (head.startsWith("%PDF")) return "PDF document"
  if (head.startsWith("PK\x03\x04")) return "ZIP archive (Office documents such as .pptx/.docx/.xlsx are ZIPs)"
  return `unrecognized bytes (hex: ${
    Array.from(bytes.subarray(0, 8), (byte) => byte.toString(16).padStart(2, "0")).join(" ")
  })`
}

export const notAnImageText = (file: string, bytes: Uint8Array): string =>
  `File has an image extension but its content is not a valid PNG/JPEG/GIF/WebP. Detected: ${
    detectedContent(bytes)
  }. This usually means a download saved an error/login page instead of the image. Use \`file "${file}"\` to confirm, or read it as text with Bash (e.g. \`head -c 500\`).`

export const UNREADABLE_IMAGE_SIZE =
  "Unable to resize image — image processing is unavailable and dimensions could not be read from the file header. Please convert the image to PNG, JPEG, GIF, or WebP."

export const emptyImageText = (file: string): string => `Image file is empty: ${file}`
