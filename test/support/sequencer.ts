/**
 * The order test files start in. With timings from an earlier run vitest starts the slowest
 * first, which keeps every worker busy to the end. Without them (a fresh clone, CI) it starts
 * the largest files first, and the slowest files here are small ones that replay many sessions
 * (conformance) or start the CLI (e2e): started last, they ran alone for the final half minute.
 * So files without timings start conformance first, then end-to-end, then the rest by size.
 */
import { relative } from "node:path"
import { BaseSequencer, type TestSpecification } from "vitest/node"

const rank = (file: TestSpecification): number =>
  /[\\/]test[\\/]conformance[\\/]/.test(file.moduleId) ? 0 : /[\\/]test[\\/]e2e[\\/]/.test(file.moduleId) ? 1 : 2

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const sorted = await super.sort(files)
    const timed = (file: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${file.project.name}:${relative(this.ctx.config.root, file.moduleId)}`) !== undefined
    if (sorted.every(timed)) return sorted
    // Array.prototype.sort is stable: within a rank, vitest's order stays
    return [...sorted].sort((a, b) => rank(a) - rank(b))
  }
}
