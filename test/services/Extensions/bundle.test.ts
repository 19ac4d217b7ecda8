/**
 * Extensions and WebFetch run from a CommonJS bundle built like the CLI's (scripts/build.mjs:
 * esbuild, format cjs, turndown/ajv external): user modules (.mjs, .cjs, and a skill's index.js)
 * are imported by the bundle, get the toolgate API, and run through the real pipeline.
 */
import { describe, expect, it } from "vitest"
import { build } from "esbuild"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { promisify } from "node:util"
import { startWebServer } from "../../fixtures/web/server.js"
import { makeExtensionSandbox } from "./support.js"

const run = promisify(execFile)
const ROOT = path.join(__dirname, "..", "..", "..")

describe("extensions and WebFetch from a CommonJS bundle", () => {
  it("loads custom tools and skills, and fetches a page, when bundled like the CLI", async () => {
    const box = makeExtensionSandbox()
    const server = await startWebServer()
    try {
      const outDir = path.join(box.root, "bundle")
      fs.mkdirSync(outDir)
      // externals resolve from the project's node_modules, as the CLI's do from dist/
      fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(outDir, "node_modules"))
      const external = ["@anthropic-ai/sdk", "@modelcontextprotocol/sdk", "web-tree-sitter", "tree-sitter-bash", "turndown", "ajv", "node-pty"]
      await build({
        entryPoints: [path.join(__dirname, "bundleProbe.ts")],
        outfile: path.join(outDir, "probe.cjs"),
        bundle: true,
        platform: "node",
        format: "cjs",
        target: "node20",
        external: external.flatMap((name) => [name, `${name}/*`]),
        logLevel: "error"
      })
      const probe = async (tool: string, input: unknown, allowedTools: ReadonlyArray<string> = []) => {
        const { stdout } = await run(process.execPath, [
          path.join(outDir, "probe.cjs"),
          JSON.stringify({ cwd: box.project, tool, input, allowedTools, userConfigDir: box.userConfigDir, toolgateDir: box.toolgateDir, sessionDir: path.join(box.root, "session") })
        ])
        return JSON.parse(stdout) as { content: unknown; is_error: boolean; newMessages: Array<{ content: Array<{ text: string }> }>; warnings: Array<string>; tools: Array<string>; skills: Array<string> }
      }
      const greet = await probe("Greet", { name: "Bundle" })
      expect(greet).toMatchObject({ content: "Hello, Bundle!", is_error: false, tools: ["Greet", "EmptyStruct", "WordCount", "Shout"] })
      expect(greet.warnings.join("\n")).toContain(`custom tool module ${path.join(box.project, ".toolgate", "tools", "broken.mjs")} was skipped: it failed to load: boom at load time`)
      expect(await probe("WordCount", { text: "a b" }, ["WordCount"])).toMatchObject({ content: `2 words (cwd ${box.project})`, is_error: false })
      expect(await probe("WordCount", { txt: "a b" }, ["WordCount"])).toMatchObject({ is_error: true })
      expect(await probe("Shout", { text: "hey" })).toMatchObject({ content: "HEY", is_error: false })
      const skill = await probe("Skill", { skill: "release-notes", args: "9.9" }, ["Skill(release-notes *)"])
      expect(skill.content).toBe("Launching skill: release-notes")
      expect(skill.newMessages[0]!.content[0]!.text).toContain("Write the release notes for version 9.9")
      const page = await probe("WebFetch", { url: `${server.origin}/page`, prompt: "title?" }, ["WebFetch(domain:127.0.0.1)"])
      expect(page).toMatchObject({ is_error: false })
      expect(page.content).toContain("# Hello toolgate")
    } finally {
      await server.close()
      box.cleanup()
    }
  }, 60_000)
})
