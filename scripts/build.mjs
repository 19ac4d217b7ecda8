// Bundles the CLI into one CommonJS file so it starts fast. Heavy libraries that only some
// commands need stay external and load from node_modules when first used.
import { build } from "esbuild"
import { chmodSync } from "node:fs"

const external = [
  "@anthropic-ai/sdk",
  "@modelcontextprotocol/sdk",
  "web-tree-sitter",
  "tree-sitter-bash",
  "turndown",
  "ajv",
  "node-pty"
]

await build({
  entryPoints: ["src/cli/bin.ts"],
  outfile: "dist/toolgate.cjs",
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  external: external.flatMap((name) => [name, `${name}/*`]),
  banner: { js: "#!/usr/bin/env node" },
  sourcemap: "linked",
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  logLevel: "warning"
})
chmodSync("dist/toolgate.cjs", 0o755)
