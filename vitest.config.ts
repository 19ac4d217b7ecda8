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
    // Three workers on two cores: the suite waits on processes, pseudo-terminals and timeouts part
    // of the time, and a third worker fills those waits. As many at the start as at the end:
    // vitest 3.2 can fail its run while it retires a surplus worker.
    poolOptions: { forks: { maxForks: 3, minForks: 3 } },
    sequence: { sequencer: SlowFirstSequencer }
  }
})
