import { defineConfig } from "vitest/config"

/**
 * Files that run in a worker of their own, after the main suite. The runtime-layers test runs
 * twenty whole agent prompts in one file; sharing a worker with the fault suite's process tests,
 * one of its Bash calls sometimes never ends (not seen when it runs alone).
 */
export const isolatedFiles = ["test/layers/runtimeLayers.test.ts"]

export default defineConfig({
  test: {
    include: isolatedFiles,
    globalSetup: ["test/support/tempRoot.ts"],
    setupFiles: ["test/support/freshEffectVitest.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks"
  }
})
