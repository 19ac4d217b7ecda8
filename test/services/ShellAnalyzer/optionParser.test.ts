/**
 * The option parser reads words the way getopt_long, git's parse-options and exact-name parsers
 * do. Where the real program is installed, its own reading is the oracle (sort, ls, git).
 */
import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { parseArgs } from "../../../src/services/ShellAnalyzer/options/parse.js"
import { optionTable, resolveLong } from "../../../src/services/ShellAnalyzer/options/table.js"
import * as G from "../../../src/services/ShellAnalyzer/options/tables/git.js"
import * as T from "../../../src/services/ShellAnalyzer/options/tables/gnu.js"
import type { OptionTable } from "../../../src/services/ShellAnalyzer/options/types.js"
import { literalFacts } from "../../../src/services/ShellAnalyzer/words.js"

const parse = (table: OptionTable, ...args: ReadonlyArray<string>) => {
  const parsed = parseArgs(table, ["prog", ...args].map((a) => literalFacts(a)))
  return {
    uses: parsed.uses.map((u) =>
      (u.value === undefined ? u.spec.id : `${u.spec.id}=${u.value.value as string}`) + (u.negated ? " (off)" : "")
    ),
    operands: parsed.operands.map((w) => w.value),
    problem: parsed.problem
  }
}

describe("GNU getopt_long", () => {
  it("resolves a unique prefix of a long option, and an exact name wins over longer ones", () => {
    expect(parse(T.sort, "--outp=x").uses).toEqual(["--output=x"])
    expect(parse(T.ls, "--dereference").uses).toEqual(["--dereference"])
    expect(resolveLong(T.ls, "dereference-command-line").kind).toBe("exact")
  })
  it("an ambiguous prefix is a problem; spellings of one option are not ambiguous", () => {
    expect(parse(T.ls, "--de").problem).toMatch(/ambiguous/)
    expect(parse(T.grep, "--colo=never").uses).toEqual(["--color=never"])
    expect(parse(T.grep, "--fi=x").problem).toMatch(/ambiguous/)
  })
  it("takes a required argument attached or as the next word, an optional one only attached", () => {
    expect(parse(T.sort, "--output", "x", "f")).toMatchObject({ uses: ["--output=x"], operands: ["f"] })
    expect(parse(T.sort, "--check", "f")).toMatchObject({ uses: ["--check"], operands: ["f"] })
    expect(parse(T.sort, "--check=quiet", "f")).toMatchObject({ uses: ["--check=quiet"], operands: ["f"] })
    expect(parse(T.sed, "-i", "s/a/b/", "f")).toMatchObject({ uses: ["--in-place"], operands: ["s/a/b/", "f"] })
    expect(parse(T.sed, "-i.bak", "s/a/b/")).toMatchObject({ uses: ["--in-place=.bak"], operands: ["s/a/b/"] })
  })
  it("reads short clusters up to the first option that takes an argument", () => {
    expect(parse(T.sort, "-rnoout.txt", "f")).toMatchObject({
      uses: ["--reverse", "--numeric-sort", "--output=out.txt"],
      operands: ["f"]
    })
    expect(parse(T.sort, "-rno", "out.txt", "f")).toMatchObject({
      uses: ["--reverse", "--numeric-sort", "--output=out.txt"],
      operands: ["f"]
    })
  })
  it("permutes: options after operands count; -- ends options; - is an operand", () => {
    expect(parse(T.sort, "f", "-o", "x")).toMatchObject({ uses: ["--output=x"], operands: ["f"] })
    expect(parse(T.sort, "--", "-o", "x")).toMatchObject({ uses: [], operands: ["-o", "x"] })
    expect(parse(T.sort, "-", "-r")).toMatchObject({ uses: ["--reverse"], operands: ["-"] })
  })
  it("an argument to a switch, a missing argument and an unknown option are problems", () => {
    expect(parse(T.sort, "--reverse=x").problem).toMatch(/no argument/)
    expect(parse(T.sort, "-o").problem).toMatch(/without its argument/)
    expect(parse(T.sort, "--bogus").problem).toMatch(/unknown/)
    expect(parse(T.sort, "-Q").problem).toMatch(/unknown/)
  })
  it("-NUM where the program takes it, but not mixed with an option that takes an argument", () => {
    expect(parse(T.head, "-5", "f")).toMatchObject({ problem: undefined, operands: ["f"] })
    expect(parse(T.head, "-5c", "f").problem).toMatch(/mixes a number/)
    expect(parse(T.grep, "-5n", "x").problem).toBeUndefined()
  })
  it("a value attached to an option is a word of its own; `~` there is not expanded", () => {
    const parsed = parseArgs(T.grep, ["grep", "--file=~/x", "p"].map((a) => literalFacts(a)))
    expect(parsed.uses[0]!.value).toMatchObject({ value: "./~/x", raw: "--file=~/x", tilde: false })
  })
  it("agrees with the real sort on what it writes (sort --outp, sort -rno)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-getopt-"))
    try {
      fs.writeFileSync(path.join(dir, "in"), "b\na\n")
      const sort = (...args: ReadonlyArray<string>) => spawnSync("sort", args, { cwd: dir, encoding: "utf8" })
      if (sort("--version").error !== undefined) return
      sort("--outp=o1", "in")
      sort("-rno", "o2", "in")
      sort("in", "--outp", "o3")
      expect(["o1", "o2", "o3"].map((f) => fs.existsSync(path.join(dir, f)))).toEqual([true, true, true])
      for (
        const [args, written] of [[["--outp=o1", "in"], "o1"], [["-rno", "o2", "in"], "o2"], [
          ["in", "--outp", "o3"],
          "o3"
        ]] as const
      ) {
        expect(parse(T.sort, ...args).uses).toContain(`--output=${written}`)
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("git parse-options and exact names", () => {
  it("resolves unique prefixes and --no- negations", () => {
    expect(parse(G.status, "--porc").uses).toEqual(["--porcelain"])
    expect(parse(G.grep, "--open").uses).toEqual(["--open-files-in-pager"])
    expect(parse(G.push, "--no-verify").uses).toEqual(["--no-verify"])
    expect(parse(G.push, "--no-thin").uses).toEqual(["--thin (off)"])
    expect(parse(G.push, "--no-th").uses).toEqual(["--thin (off)"])
    expect(parse(G.push, "--verify").uses).toEqual(["--no-verify (off)"])
  })
  it("an abbreviation of several options is ambiguous (as git says for push --forc)", () => {
    expect(parse(G.push, "--forc").problem).toMatch(/ambiguous/)
    expect(parse(G.push, "--n").problem).toMatch(/ambiguous/)
  })
  it("the log family reads exact names only", () => {
    expect(parse(G.logFamily, "--outp=x").problem).toMatch(/unknown/)
    expect(parse(G.logFamily, "--output=x").uses).toEqual(["--output=x"])
  })
  it("agrees with the real git on an abbreviation it accepts and one it rejects", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-gitopt-"))
    try {
      const git = (...args: ReadonlyArray<string>) => spawnSync("git", args, { encoding: "utf8", cwd: dir })
      if (git("init", "-q").error !== undefined) return
      expect(git("push", "--forc").stderr).toMatch(/ambiguous option: forc/)
      expect(git("status", "--porc").status).toBe(0)
      expect(git("diff", "--outp=x").stderr).toMatch(/invalid option|unrecognized|usage/)
      expect(fs.existsSync(path.join(dir, "x"))).toBe(false)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("table notation", () => {
  it("rejects a name listed twice and a token it cannot read", () => {
    expect(() => optionTable("-a/--all --all")).toThrow(/twice/)
    expect(() => optionTable("--x=q")).toThrow(/cannot read/)
  })
})
