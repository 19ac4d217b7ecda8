import { defineConfig } from "vitest/config"
import { SlowFirstSequencer } from "./test/support/sequencer.js"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/tempRoot.ts"],
    setupFiles: ["test/support/freshEffectVitest.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // One module registry per worker, shared by its files: importing effect and the stages anew
    // for every file cost more than the tests of most files.
    isolate: false,
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    sequence: { sequencer: SlowFirstSequencer }
  }
})
