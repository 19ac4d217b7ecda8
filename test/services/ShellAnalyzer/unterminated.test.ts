import { describe, expect, it } from "vitest"
import { leavesExpansionOpen } from "../../../src/services/ShellAnalyzer/unterminated.js"

describe("leavesExpansionOpen: a $ expansion the command never closes (Claude Code then asks in every mode)", () => {
  it.each([
    "echo ${x",
    "echo $(echo hi",
    "echo \"${x\"",
    "echo $[1+",
    "echo ${x:-",
    "echo $(( 1 +",
    "echo \"$(date\"",
    "touch a; echo ${y",
    "echo $((1 + (2)",
    "echo \"`echo ${x`\""
  ])("open: %s", (command) => expect(leavesExpansionOpen(command)).toBe(true))

  it.each([
    "echo ${x}}",
    "echo $x )",
    "echo \"abc $x",
    "echo 'abc",
    "echo <(ls",
    "echo $((1+2)) )",
    "echo '${x'",
    "echo \\${x",
    "echo ${x:-'}'}",
    "echo $(echo ')')",
    "echo $((1 + (2)))",
    "echo $(echo ${x})",
    "echo hi # ${x",
    "echo ${#x} $[1+2] $(( (1) ))",
    "echo \"${x}\" \"$(echo \")\")\""
  ])("closed or not an expansion: %s", (command) => expect(leavesExpansionOpen(command)).toBe(false))
})
