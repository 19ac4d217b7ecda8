/** The orders Glob (oldest first) and Grep's files_with_matches (newest first) list files in; ties by path. */
import * as fs from "node:fs"

const withMtimes = async (files: ReadonlyArray<string>): Promise<Array<readonly [string, number]>> => {
  const withTimes: Array<readonly [string, number]> = []
  const batch = 64
  for (let i = 0; i < files.length; i += batch) {
    const slice = files.slice(i, i + batch)
    const times = await Promise.all(slice.map((f) => fs.promises.stat(f).then((s) => s.mtimeMs, () => 0)))
    slice.forEach((f, j) => withTimes.push([f, times[j]!]))
  }
  return withTimes
}

const byPath = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

export const sortByMtimeNewestFirst = async (files: ReadonlyArray<string>): Promise<ReadonlyArray<string>> =>
  (await withMtimes(files)).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]) || byPath(a[0], b[0])).map(([f]) =>
    f
  )

export const sortByMtimeOldestFirst = async (files: ReadonlyArray<string>): Promise<ReadonlyArray<string>> =>
  (await withMtimes(files)).sort((a, b) => a[1] - b[1] || byPath(a[0], b[0])).map(([f]) => f)
