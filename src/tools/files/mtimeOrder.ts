/** Newest first, then by path: the order Glob and Grep's files_with_matches list files in. */
import * as fs from "node:fs"

export const sortByMtimeNewestFirst = async (files: ReadonlyArray<string>): Promise<ReadonlyArray<string>> => {
  const withTimes: Array<readonly [string, number]> = []
  const batch = 64
  for (let i = 0; i < files.length; i += batch) {
    const slice = files.slice(i, i + batch)
    const times = await Promise.all(slice.map((f) => fs.promises.stat(f).then((s) => s.mtimeMs, () => 0)))
    slice.forEach((f, j) => withTimes.push([f, times[j]!]))
  }
  return withTimes.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([f]) => f)
}
