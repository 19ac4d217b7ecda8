/**
 * Atomic file replacement: write a temporary file beside the target, flush it, then rename it
 * over the target. A reader sees the old file or the new one, never a partial one.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { randomBytes } from "node:crypto"

export const tempPathFor = (file: string): string =>
  path.join(path.dirname(file), `.${path.basename(file)}.toolgate-${process.pid}-${randomBytes(4).toString("hex")}.tmp`)

export const writeFileAtomic = async (
  file: string,
  content: string | Uint8Array,
  options: {
    readonly mode?: number
    readonly signal?: AbortSignal /** `mode` as given, not masked by the umask. */
    readonly exactMode?: boolean
  } = {}
): Promise<void> => {
  const temp = tempPathFor(file)
  const handle = await fs.promises.open(temp, "wx", options.mode ?? 0o644)
  try {
    if (options.exactMode === true && options.mode !== undefined) await handle.chmod(options.mode)
    await handle.writeFile(content, options.signal === undefined ? {} : { signal: options.signal })
    await handle.sync()
    // an interrupted write must not land: the target keeps its old content
    options.signal?.throwIfAborted()
  } catch (error) {
    await handle.close().catch(() => undefined)
    await fs.promises.rm(temp, { force: true })
    throw error
  }
  await handle.close()
  try {
    await fs.promises.rename(temp, file)
  } catch (error) {
    await fs.promises.rm(temp, { force: true })
    throw error
  }
}
