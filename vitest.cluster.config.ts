import { defineConfig } from "vitest/config"

/** `npm run test:cluster`: several `toolgate serve --runner` processes on a temporary PostgreSQL. */
export default defineConfig({
  test: {
    include: ["test/**/*.cluster.ts"],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: "forks"
  }
})
