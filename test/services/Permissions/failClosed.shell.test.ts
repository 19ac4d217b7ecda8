/**
 * Issue 12 item 4, shell classes, through the real Permissions layer (settings from real files):
 *   - a nested shell with a command string (any shell, through any wrapper, fed by -c, a
 *     here-string or a pipe) is judged by its inner command: a deny rule that matches the inner
 *     command denies, in every mode;
 *   - subshells and groups are judged by their contents and are never more permissive than the
 *     bare command (a property over a corpus, in every mode).
 */
import { afterAll, describe, expect, it } from "vitest"
import type { Decision, PermissionMode } from "../../../src/Permission.js"
import * as F from "./fixture.js"
import * as Permission from "../../../src/Permission.js"

type Rules = { allow?: ReadonlyArray<string>; deny?: ReadonlyArray<string>; ask?: ReadonlyArray<string> }

/** One project per rule set, its settings written once and its Permissions layer built once. */
const projects = new Map<string, { readonly fx: F.Fixture; readonly decider: F.Decider }>()
afterAll(async () => {
  for (const { fx, decider } of projects.values()) {
    await decider.dispose()
    fx.cleanup()
  }
})

const decideWith = (rules: Rules, command: string, mode: PermissionMode): Promise<Decision> => {
  const key = JSON.stringify(rules)
  let project = projects.get(key)
  if (project === undefined) {
    const fx = F.makeFixture()
    F.writeSettings(fx, { project: { permissions: rules } })
    project = { fx, decider: F.makeDecider(F.settingsOptions(fx, { trustProject: true })) }
    projects.set(key, project)
  }
  return project.decider.decide(F.BashTool, { command }, F.session(project.fx, mode))
}

// Broad allow rules a user might have, so that nothing is denied merely because nothing allows it.
const BROAD_ALLOW = [
  "Bash(sh:*)",
  "Bash(bash:*)",
  "Bash(env:*)",
  "Bash(xargs:*)",
  "Bash(echo:*)",
  "Bash(busybox:*)",
  "Bash(zsh:*)",
  "Bash(nice:*)",
  "Bash(timeout:*)"
]

/** Inner commands with the deny rule that must catch them. */
const INNER: ReadonlyArray<readonly [string, string]> = [
  ["rm -rf build", "Bash(rm:*)"],
  ["git push origin main", "Bash(git push:*)"],
  ["curl https://example.com", "Bash(curl:*)"],
  ["FOO=1 rm x", "Bash(rm:*)"]
]

/** Ways to run a command string in a nested shell; `@S@` stands for the string, quoted. */
const RUNNERS: ReadonlyArray<string> = [
  "sh -c @S@",
  "bash -c @S@",
  "zsh -c @S@",
  "dash -c @S@",
  "ksh -c @S@",
  "mksh -c @S@",
  "fish -c @S@",
  "yash -c @S@",
  "tcsh -c @S@",
  "busybox sh -c @S@",
  "busybox ash -c @S@",
  "/bin/sh -c @S@",
  "/usr/bin/env bash -c @S@",
  "env sh -c @S@",
  "env -i PATH=/bin sh -c @S@",
  "env -S 'sh -c' @S@",
  "exec sh -c @S@",
  "exec -a x bash -c @S@",
  "nice sh -c @S@",
  "nice -n 10 bash -c @S@",
  "timeout 5 sh -c @S@",
  "timeout -s KILL 5 bash -c @S@",
  "nohup sh -c @S@",
  "stdbuf -oL sh -c @S@",
  "command sh -c @S@",
  "builtin eval @S@",
  "eval @S@",
  "xargs sh -c @S@",
  "echo a | xargs -n1 sh -c @S@",
  "find . -maxdepth 0 -exec sh -c @S@ \\;",
  "sudo sh -c @S@",
  "sudo -u nobody bash -c @S@",
  "doas sh -c @S@",
  "su -c @S@",
  "su - root -c @S@",
  "runuser -u nobody -- sh -c @S@",
  "sg wheel -c @S@",
  "script -qc @S@ /dev/null",
  "setsid sh -c @S@",
  "ionice -c3 sh -c @S@",
  "flock /tmp/lock -c @S@",
  "watch -n1 @S@",
  "time sh -c @S@",
  "chroot / sh -c @S@",
  "unbuffer sh -c @S@",
  "nsenter -t 1 -m sh -c @S@",
  "ssh localhost @S@",
  "parallel sh -c @S@ ::: a",
  "bash -lc @S@",
  "bash -ic @S@",
  "sh -ec @S@",
  "bash -x -c @S@",
  "bash --norc --noprofile -c @S@",
  "bash -c -- @S@",
  "bash -o pipefail -c @S@",
  "sh -c @S@ sh arg1",
  "sh -c \"sh -c @S@\"",
  "bash <<< @S@",
  "bash -s <<< @S@",
  "bash /dev/stdin <<< @S@",
  "sh /proc/self/fd/0 <<< @S@",
  "echo @S@ | sh",
  "printf '%s' @S@ | bash -s",
  "(sh -c @S@)",
  "{ bash -c @S@; }",
  "true && sh -c @S@",
  "sh -c @S@ &",
  "x=$(sh -c @S@)"
]

const quote = (inner: string) => `'${inner.replace(/'/g, "'\\''")}'`

describe("nested shells are judged by their inner command (issue 12 item 4)", () => {
  const cases = RUNNERS.flatMap((runner) =>
    INNER.map(([inner, deny]) => [runner.replaceAll("@S@", quote(inner)), deny] as const)
  )
  it.each(cases)("%s with deny %s", async (command, deny) => {
    for (const mode of ["default", "acceptEdits", "bypassPermissions", "dontAsk"] as const) {
      const decision = await decideWith({ deny: [deny], allow: BROAD_ALLOW }, command, mode)
      expect(Permission.behaviorOf(decision), `${mode}: ${command}`).toBe("deny")
    }
  })

  it("a shell reading a script file or stdin is never approved by an allow rule for the shell", async () => {
    for (
      const command of [
        "bash /dev/stdin <<< 'ls'",
        "sh - <<< 'ls'",
        "bash /dev/fd/0 < x.sh",
        "sh < x.sh",
        "cat x.sh | bash"
      ]
    ) {
      const decision = await decideWith({ allow: BROAD_ALLOW }, command, "default")
      expect(Permission.behaviorOf(decision), command).toBe("ask")
    }
  })
})

// ---------------------------------------------------------------------------------------------

const RANK: Readonly<Record<Decision["_tag"], number>> = { Allow: 0, Ask: 1, Deny: 2 }

/** Commands of every kind: allowed, read-only, writes, denied, asked, complex. */
const CORPUS: ReadonlyArray<string> = [
  "ls",
  "ls -la src",
  "git status",
  "git log --oneline -5",
  "git push origin main",
  "cat .env",
  "cat src/a.ts",
  "cat ~/secrets/key",
  "echo hi",
  "echo hi > out.txt",
  "echo hi >> notes.txt",
  "echo x > ~/.bashrc",
  "echo x > .claude/settings.json",
  "touch new.txt",
  "mkdir -p build/out",
  "rm -rf build",
  "rm -rf /",
  "rm -rf ~",
  "rm -rf .",
  "cp src/a.ts /tmp/a.ts",
  "mv notes.txt docs/",
  "sed -i s/a/b/ src/a.ts",
  "npm test",
  "npm publish",
  "curl https://example.com",
  "cd src && ls",
  "cd .. && touch x",
  "cd /tmp && rm -rf x",
  "export X=1; echo $X",
  "echo ${HOME:-x}",
  "ls $HOME",
  "find . -name '*.ts' -delete",
  "xargs rm < list.txt",
  "sudo ls",
  "sh -c 'rm -rf build'",
  "git status && rm -rf build",
  "ls | grep a",
  "cat < .env",
  "python3 -c 'print(1)'",
  "chmod 777 src/a.ts",
  "ln -s /etc/passwd x",
  "tee out.txt < src/a.ts",
  "echo $(cat .env)"
]

const WRAPS: ReadonlyArray<readonly [string, (c: string) => string]> = [
  ["(c)", (c) => `(${c})`],
  ["( c )", (c) => `( ${c} )`],
  ["{ c; }", (c) => `{ ${c}; }`],
  ["((c))", (c) => `( (${c}) )`],
  ["{ (c); }", (c) => `{ (${c}); }`],
  ["(c) with a newline", (c) => `(\n${c}\n)`],
  ["! (c)", (c) => `! (${c})`],
  ["(c) 2>&1", (c) => `(${c}) 2>&1`],
  ["{ c; } | cat", (c) => `{ ${c}; } | cat`],
  ["(true; c)", (c) => `(true; ${c})`]
]

const RULE_SETS = [
  { name: "no rules", rules: {} },
  {
    name: "realistic rules",
    rules: {
      allow: [
        "Bash(git status:*)",
        "Bash(git log:*)",
        "Bash(npm test:*)",
        "Bash(echo:*)",
        "Bash(ls:*)",
        "Bash(cat:*)",
        "Bash(cd:*)",
        "Bash(touch:*)"
      ],
      deny: ["Bash(rm:*)", "Bash(git push:*)", "Read(.env)", "Edit(.claude/**)"],
      ask: ["Bash(npm publish:*)", "Bash(curl:*)"]
    }
  },
  { name: "a tool-wide Bash allow", rules: { allow: ["Bash"], deny: ["Read(~/secrets/**)"] } }
] as const

describe("subshells and groups are never more permissive than the bare command (issue 12 item 4)", () => {
  for (const set of RULE_SETS) {
    for (const mode of ["default", "acceptEdits", "plan", "bypassPermissions"] as const) {
      it(`${set.name}, ${mode}`, async () => {
        const worse: Array<string> = []
        for (const bare of CORPUS) {
          const base = await decideWith(set.rules, bare, mode)
          for (const [name, wrap] of WRAPS) {
            const wrapped = await decideWith(set.rules, wrap(bare), mode)
            if (RANK[wrapped._tag] < RANK[base._tag]) {
              worse.push(`${name}: ${wrap(bare)} is ${wrapped._tag}, bare ${bare} is ${base._tag}`)
            }
            // denied contents stay denied: a group is judged by what it contains
            if (Permission.behaviorOf(base) === "deny" && Permission.behaviorOf(wrapped) !== "deny") {
              worse.push(`${name}: ${wrap(bare)} is ${Permission.behaviorOf(wrapped)}, bare is deny`)
            }
          }
        }
        expect(worse).toEqual([])
      }, 300_000)
    }
  }
})
