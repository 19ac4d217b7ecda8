/** A temporary project with the fixture skills and custom tools, and a temporary user config. */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export const FIXTURES = path.join(__dirname, "..", "..", "fixtures")

export interface ExtensionSandbox {
  readonly root: string
  readonly project: string
  readonly userConfigDir: string
  readonly toolgateDir: string
  readonly cleanup: () => void
}

export const makeExtensionSandbox = (options: { readonly userSkills?: boolean } = {}): ExtensionSandbox => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-ext-"))
  const project = path.join(root, "project")
  const userConfigDir = path.join(root, "claude-home")
  const toolgateDir = path.join(root, "toolgate-home")
  fs.mkdirSync(project, { recursive: true })
  fs.mkdirSync(toolgateDir, { recursive: true })
  fs.cpSync(path.join(FIXTURES, "skills", "project", ".claude"), path.join(project, ".claude"), { recursive: true })
  fs.cpSync(path.join(FIXTURES, "custom-tools", "project", ".toolgate"), path.join(project, ".toolgate"), {
    recursive: true
  })
  if (options.userSkills === true) fs.cpSync(path.join(FIXTURES, "skills", "user"), userConfigDir, { recursive: true })
  else fs.mkdirSync(userConfigDir, { recursive: true })
  return { root, project, userConfigDir, toolgateDir, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) }
}
