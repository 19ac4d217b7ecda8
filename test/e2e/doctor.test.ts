/**
 * `toolgate doctor`: what protects this machine, on stdout as text or JSON, run in this process.
 * The CI machine has bubblewrap; a bwrap that cannot run (TOOLGATE_BWRAP_PATH=/bin/false) shows
 * the other side: the sandbox is reported missing, with the reason, and nothing else changes.
 */
import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import { cleanEnv, runCliInProcess } from "../services/Agent/cliSupport.js"
import { tempDir } from "../support/runtime.js"

const doctor = (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const cwd = fs.realpathSync(tempDir("toolgate-doctor-"))
  return runCliInProcess(["doctor", "--strict-mcp-config", ...args], { cwd, env: cleanEnv(env) })
}

describe("toolgate doctor", () => {
  it("lists the analyzer, the sandbox and its version, the profiles and the settings in force", async () => {
    const ran = await doctor([
      "--settings",
      JSON.stringify({ sandbox: { enabled: true }, permissions: { allow: ["WebFetch(domain:github.com)"] } })
    ])
    expect(ran.code, ran.stderr).toBe(0)
    expect(ran.stdout).toMatch(/^Shell analyzer\n {2}loaded \(tree-sitter-bash\)/)
    expect(ran.stdout).toMatch(
      /\nKernel sandbox\n {2}bubblewrap \d+\.\d+\.\d+ \(\/\S+\/bwrap\), with @anthropic-ai\/sandbox-runtime 0\.0\.83\n/
    )
    expect(ran.stdout).toContain(
      "  run in the read-only sandbox: no writes (a private $TMPDIR aside), no network, paths Read deny rules cover hidden"
    )
    expect(ran.stdout).toContain("  sandbox.enabled: yes (flagSettings): every Bash command runs in it")
    expect(ran.stdout).toContain("  allowed hosts: github.com")
    expect(ran.stderr).toBe("")

    const json = await doctor(["--json"])
    expect(json.code, json.stderr).toBe(0)
    const report = JSON.parse(json.stdout)
    expect(report).toMatchObject({
      shellAnalyzer: { loaded: true },
      sandbox: { available: true, mechanism: "bubblewrap", runtime: "@anthropic-ai/sandbox-runtime 0.0.83" },
      readOnlyProfile: { on: true },
      settingsSandbox: {
        enabled: false,
        active: false,
        autoAllowBashIfSandboxed: false,
        allowUnsandboxedCommands: true
      },
      permissions: { mode: "default", allow: 0, ask: 0, deny: 0 },
      processLifetime: { namespace: true }
    })
    expect(ran.stdout).toMatch(/\nProcesses toolgate starts\n {2}each in a PID namespace that dies with toolgate/)
  })

  it("says so where no sandbox can start, and why", async () => {
    const ran = await doctor(["--json", "--settings", JSON.stringify({ sandbox: { enabled: true } })], {
      TOOLGATE_BWRAP_PATH: "/bin/false"
    })
    expect(ran.code, ran.stderr).toBe(0)
    const report = JSON.parse(ran.stdout)
    expect(report.sandbox).toEqual({ available: false, reason: "/bin/false --version failed: exit code 1" })
    expect(report.readOnlyProfile.on).toBe(false)
    expect(report.settingsSandbox).toMatchObject({ enabled: true, active: false })
    expect(report.processLifetime).toMatchObject({
      namespace: false,
      detail: expect.stringMatching(/^process groups only \(bubblewrap cannot make a PID namespace here/)
    })
    // the one warning line, on stderr: stdout carries the report only
    expect(ran.stderr).toBe(
      "toolgate: warning: no sandbox: /bin/false --version failed: exit code 1; Bash commands run without one (toolgate doctor shows what protects this machine)\n"
    )
  })
})
