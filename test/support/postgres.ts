/**
 * A throw-away PostgreSQL server for tests: Debian's server binaries, a temporary data directory,
 * trust authentication for one user, listening on 127.0.0.1 only; stopped by pid and removed.
 * PostgreSQL refuses to run as root, so as root the server runs as `nobody` (via setpriv).
 */
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

export interface Postgres {
  readonly url: string
  readonly pid: number
  /** The folder of the server's binaries (psql among them). */
  readonly bin: string
  stop(): Promise<void>
}

/** The folder of `initdb` and `postgres`, or undefined when PostgreSQL is not installed. */
export const postgresBin = (): string | undefined => {
  const root = "/usr/lib/postgresql"
  if (!fs.existsSync(root)) return undefined
  const versions = fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, "bin", "postgres"))).sort((
    a,
    b
  ) => Number(b) - Number(a))
  return versions.length === 0 ? undefined : path.join(root, versions[0]!, "bin")
}

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

const asRoot = process.getuid?.() === 0
const unprivileged = (command: string, args: ReadonlyArray<string>): [string, Array<string>] =>
  asRoot ? ["setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", command, ...args]] : [command, [...args]]

export interface PostgresOptions {
  /**
   * Commits wait for their log record to be written (default: they do not, which loses the last
   * commits when the server crashes).
   */
  readonly durableCommits?: boolean
}

export const startPostgres = async (bin: string, options: PostgresOptions = {}): Promise<Postgres> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-pg-"))
  const data = path.join(dir, "data")
  fs.mkdirSync(data, { mode: 0o700 })
  if (asRoot) execFileSync("chown", ["-R", "nobody:nogroup", dir])
  const [initdb, initArgs] = unprivileged(path.join(bin, "initdb"), [
    "-D",
    data,
    "-U",
    "toolgate",
    "--auth=trust",
    "-E",
    "UTF8",
    "--no-sync"
  ])
  execFileSync(initdb, initArgs, { stdio: "pipe", env: { ...process.env, HOME: dir } })
  const port = await freePort()
  const [postgres, args] = unprivileged(path.join(bin, "postgres"), [
    "-D",
    data,
    "-p",
    String(port),
    "-k",
    dir,
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    "fsync=off",
    "-c",
    `synchronous_commit=${options.durableCommits === true ? "on" : "off"}`,
    "-c",
    "max_connections=200"
  ])
  const child = spawn(postgres, args, { stdio: ["ignore", "ignore", "pipe"] })
  let log = ""
  const exited = new Promise<void>((done) => child.once("exit", () => done()))
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`PostgreSQL did not start:\n${log}`)), 60_000)
    child.stderr!.on("data", (d) => {
      log += String(d)
      if (log.includes("ready to accept connections")) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`PostgreSQL exited (${code}):\n${log}`))
    })
  })
  return {
    url: `postgres://toolgate@127.0.0.1:${port}/postgres`,
    pid: child.pid!,
    bin,
    stop: async () => {
      // SIGINT: PostgreSQL's fast shutdown
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, "SIGINT")
      await exited
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}

const psqlOf = (pg: Postgres) => fs.existsSync(path.join(pg.bin, "psql")) ? path.join(pg.bin, "psql") : "psql"

const checkName = (name: string) => {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a database object name: ${name}`)
}

/** A new, empty database on the server (its tables in `tablespace`, when given); its URL. */
export const createDatabase = async (pg: Postgres, name: string, tablespace?: string): Promise<string> => {
  checkName(name)
  if (tablespace !== undefined) checkName(tablespace)
  const sql = `CREATE DATABASE ${name}${tablespace === undefined ? "" : ` TABLESPACE ${tablespace}`}`
  execFileSync(psqlOf(pg), [pg.url, "-q", "-c", sql], { stdio: "pipe" })
  return pg.url.replace(/\/postgres$/, `/${name}`)
}

/** A tablespace in `dir`, an empty folder (as root, it is given to the server's user). */
export const createTablespace = (pg: Postgres, name: string, dir: string): void => {
  checkName(name)
  if (!/^[\w./-]+$/.test(dir)) throw new Error(`not a plain folder path: ${dir}`)
  if (asRoot) execFileSync("chown", ["nobody:nogroup", dir])
  execFileSync(psqlOf(pg), [pg.url, "-q", "-c", `CREATE TABLESPACE ${name} LOCATION '${dir}'`], { stdio: "pipe" })
}
