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
        entryPoints: [path.join(__dirname, "bundleProbe.ts")],
        outfile: path.join(outDir, "probe.cjs"),
        bundle: true,
        platform: "node",
        format: "cjs",
        target: "node20",
        external: external.flatMap((name) => [name, `${name}/*`]),
        logLevel: "error"
      })
      // one process runs every call (each with a runtime of its own): the bundle and its imports load once
      const { stdout } = await run(process.execPath, [
        path.join(outDir, "probe.cjs"),
        JSON.stringify({
          cwd: box.project,
          calls: [
            { tool: "Greet", input: { name: "Bundle" }, allowedTools: [] },
            { tool: "WordCount", input: { text: "a b" }, allowedTools: ["WordCount"] },
            { tool: "WordCount", input: { txt: "a b" }, allowedTools: ["WordCount"] },
            { tool: "Shout", input: { text: "hey" }, allowedTools: [] },
            { tool: "Skill", input: { skill: "release-notes", args: "9.9" }, allowedTools: ["Skill(release-notes *)"] },
            {
              tool: "WebFetch",
              input: { url: `${server.origin}/page`, prompt: "title?" },
              allowedTools: ["WebFetch(domain:127.0.0.1)"]
            }
          ],
          userConfigDir: box.userConfigDir,
          toolgateDir: box.toolgateDir,
          sessionDir: path.join(box.root, "session")
        })
      ])
      type Outcome = {
        content: unknown
        is_error: boolean
        newMessages: Array<{ content: Array<{ text: string }> }>
        warnings: Array<string>
        tools: Array<string>
        skills: Array<string>
      }
      const [greet, counted, badInput, shout, skill, page] = JSON.parse(stdout) as Array<Outcome>
      expect(greet).toMatchObject({
        content: "Hello, Bundle!",
        is_error: false,
        tools: ["Greet", "EmptyStruct", "WordCount", "Shout"]
      })
      expect(greet!.warnings.join("\n")).toContain(
        `custom tool module ${
          path.join(box.project, ".toolgate", "tools", "broken.mjs")
        } was skipped: it failed to load: boom at load time`
      )
      expect(counted).toMatchObject({ content: `2 words (cwd ${box.project})`, is_error: false })
      expect(badInput).toMatchObject({ is_error: true })
      expect(shout).toMatchObject({ content: "HEY", is_error: false })
      expect(skill!.content).toBe("Launching skill: release-notes")
      expect(skill!.newMessages[0]!.content[0]!.text).toContain("Write the release notes for version 9.9")
      expect(page).toMatchObject({ is_error: false })
      expect(page!.content).toContain("# Hello toolgate")
    } finally {
      await server.close()
      box.cleanup()
    }
  }, 60_000)
})
