/**
 * The order test files start in. With timings from an earlier run vitest starts the slowest
 * first, which keeps every worker busy to the end. Without them (a fresh clone, CI) it starts
 * the largest files first, and the slowest files here are small ones: the package test (an npm
 * install), the conformance replays and the end-to-end files. Started last, they ran alone for
 * the final minute. So files without timings start in that order, then the rest by size.
 */
import { relative } from "node:path"
import { BaseSequencer, type TestSpecification } from "vitest/node"

const SLOWEST_FIRST: ReadonlyArray<RegExp> = [
  /[\\/]test[\\/]e2e[\\/]package\.test\.ts$/,
  /[\\/]test[\\/]conformance[\\/]/,
  /[\\/]test[\\/]e2e[\\/]/
]

const rank = (file: TestSpecification): number => {
  const at = SLOWEST_FIRST.findIndex((pattern) => pattern.test(file.moduleId))
  return at < 0 ? SLOWEST_FIRST.length : at
}

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const sorted = await super.sort(files)
    const timed = (file: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${file.project.name}:${relative(this.ctx.config.root, file.moduleId)}`) !==
        undefined
    if (sorted.every(timed)) return sorted
    // Array.prototype.sort is stable: within a rank, vitest's order stays
    return [...sorted].sort((a, b) => rank(a) - rank(b))
  }
}
