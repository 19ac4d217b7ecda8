/** Which files Read refuses as binary: by extension (as Claude Code) or by a NUL byte in the head. */
import * as path from "node:path"

const BINARY_EXTENSIONS = new Set(
  (
    "7z a aac accdb ai aif aiff apk ar avi avif bin bmp bz2 class com cur dat db deb dll dmg doc docx dylib ear " +
    "eot exe flac flv gz heic heif ico icns iso jar jp2 ko lib lz lz4 lzma m4a m4v mid midi mkv mov mp3 mp4 mpeg " +
    "mpg msi o obj odp ods odt ogg opus otf pdb pkg ppt pptx psd pyc pyd pyo rar rlib rpm so sqlite sqlite3 swf " +
    "tar tbz tbz2 tgz tif tiff ttf txz war wav wasm webm wma wmv woff woff2 xls xlsx xz zip zst"
  ).split(" ")
)

export const IMAGE_EXTENSIONS = new Set(["png", "jpg", "jpeg", "gif", "webp"])

export const extensionOf = (file: string): string => path.extname(file).toLowerCase().replace(/^\./, "")

export const hasBinaryExtension = (file: string): boolean => BINARY_EXTENSIONS.has(extensionOf(file))

/** A NUL byte in the first 8 KiB. */
export const looksBinary = (head: Uint8Array): boolean => head.subarray(0, 8192).includes(0)

export const binaryExtensionMessage = (file: string): string =>
  `This tool cannot read binary files. The file appears to be a binary .${
    extensionOf(file)
  } file. Use a skill for this file type if one is available, or a shell command or script that can read the format.`

export const binaryContentMessage = (file: string): string =>
  `This tool cannot read binary files. ${file} contains NUL bytes, so it appears to be binary. Please use appropriate tools for binary file analysis.`
