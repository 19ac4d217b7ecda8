/**
 * The served sessions' own tables, next to the cluster's in the same SQL database (SQLite or
 * PostgreSQL): sessions (config, token hash, conversation), their inputs, permission questions
 * and answers, the event log, the transcript, the start marks of side-effecting calls and the
 * outcomes of durable steps.
 * JSON columns are text; every row read back is decoded with a Schema.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import { Context, Effect, Layer, Option, Schedule, Schema } from "effect"
import { faultReason, faultText, isStorageFault, StorageHealth, type StorageHealthService } from "./storageFaults.js"

const TABLES = [
  `CREATE TABLE IF NOT EXISTS toolgate_sessions (
    id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL,
    config TEXT NOT NULL,
    state TEXT,
    granted_rules TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS toolgate_inputs (
    session_id TEXT NOT NULL,
    input_key TEXT NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    status TEXT NOT NULL,
    execution_id TEXT,
    result TEXT,
    interrupts INTEGER NOT NULL,
    created_at BIGINT NOT NULL,
    finished_at BIGINT,
    PRIMARY KEY (session_id, input_key)
  )`,
  `CREATE TABLE IF NOT EXISTS toolgate_approvals (
    execution_id TEXT NOT NULL,
    tool_use_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    input_key TEXT NOT NULL,
    request TEXT NOT NULL,
    answer TEXT,
    asked_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    answered_at BIGINT,
    PRIMARY KEY (execution_id, tool_use_id)
  )`,
  `CREATE TABLE IF NOT EXISTS toolgate_events (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (session_id, seq)
  )`,
  `CREATE TABLE IF NOT EXISTS toolgate_transcript (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  )`,
  `CREATE TABLE IF NOT EXISTS toolgate_steps (
    execution_id TEXT NOT NULL,
    step TEXT NOT NULL,
    state TEXT NOT NULL,
    runner TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    PRIMARY KEY (execution_id, step)
  )`,
  `CREATE TABLE IF NOT EXISTS toolgate_messages (
    session_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    message TEXT NOT NULL,
    PRIMARY KEY (session_id, idx)
  )`,
  `CREATE TABLE IF NOT EXISTS toolgate_step_outcomes (
    execution_id TEXT NOT NULL,
    step TEXT NOT NULL,
    outcome TEXT NOT NULL,
    PRIMARY KEY (execution_id, step)
  )`,
  `CREATE TABLE IF NOT EXISTS toolgate_probe (
    runner TEXT PRIMARY KEY,
    at BIGINT NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS toolgate_space_probe (
    at BIGINT NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS toolgate_approvals_session ON toolgate_approvals (session_id, answered_at)`,
  `CREATE INDEX IF NOT EXISTS toolgate_inputs_unfinished ON toolgate_inputs (session_id, seq)
    WHERE status IN ('queued', 'running')`
]

export interface SessionRow {
  readonly id: string
  readonly tokenHash: string
  readonly config: unknown
  readonly state: unknown
  readonly grantedRules: ReadonlyArray<string>
  readonly status: "idle" | "running" | "stopped"
  readonly createdAt: number
  readonly updatedAt: number
}

export interface InputRow {
  readonly sessionId: string
  readonly key: string
  readonly seq: number
  readonly kind: "prompt" | "tool_uses"
  readonly body: unknown
  readonly status: "queued" | "running" | "done" | "failed"
  readonly executionId: string | undefined
  readonly result: unknown
  readonly interrupts: number
  readonly createdAt: number
  readonly finishedAt: number | undefined
}

export interface ApprovalRow {
  readonly executionId: string
  readonly toolUseId: string
  readonly sessionId: string
  readonly inputKey: string
  readonly request: unknown
  readonly answer: unknown
  readonly askedAt: number
  readonly expiresAt: number
  readonly answeredAt: number | undefined
}

export interface EventRow {
  readonly seq: number
  readonly type: string
  readonly data: unknown
  readonly at: number
}

/** A session as `GET /sessions` lists it: no conversation, no configuration beyond its folder and model. */
export interface SessionListRow {
  readonly id: string
  readonly status: SessionRow["status"]
  readonly cwd: string
  readonly model: string | undefined
  readonly scripted: boolean
  readonly inputs: number
  readonly createdAt: number
  readonly updatedAt: number
}

export type StepMark = { readonly _tag: "New" } | {
  readonly _tag: "Existing"
  readonly state: string
  readonly runner: string
}

export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  operation: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `session storage (${this.operation}): ${this.reason}`
  }
}

export interface SessionStoreService {
  readonly insertSession: (row: Omit<SessionRow, "state" | "grantedRules">) => Effect.Effect<void, StoreError>
  readonly session: (id: string) => Effect.Effect<Option.Option<SessionRow>, StoreError>
  /** Sessions ordered by creation, after the given one. */
  readonly sessionsPage: (
    limit: number,
    after: { readonly createdAt: number; readonly id: string } | undefined
  ) => Effect.Effect<ReadonlyArray<SessionListRow>, StoreError>
  readonly inputCount: (sessionId: string) => Effect.Effect<number, StoreError>
  /** Sessions not running whose last change is older than `before`. */
  readonly idleSince: (before: number, limit: number) => Effect.Effect<ReadonlyArray<string>, StoreError>
  /** Removes the session and everything stored for it, the cluster's messages to it and its inputs' workflows too; false when there was none. */
  readonly deleteSession: (id: string) => Effect.Effect<boolean, StoreError>
  /** Storage answers. */
  readonly ping: Effect.Effect<void, StoreError>
  /** Storage takes a write (a row of this runner's; on PostgreSQL, one that needs new space too). */
  readonly probe: (runner: string, now: number) => Effect.Effect<void, StoreError>
  readonly setStatus: (id: string, status: SessionRow["status"], now: number) => Effect.Effect<void, StoreError>
  readonly addGrantedRules: (id: string, rules: ReadonlyArray<string>, now: number) => Effect.Effect<void, StoreError>

  /** Adds an input unless its key exists; returns the row as stored (the earlier one for a repeated key). */
  readonly insertInput: (
    row: Pick<InputRow, "sessionId" | "key" | "kind" | "body" | "createdAt">
  ) => Effect.Effect<{ readonly row: InputRow; readonly created: boolean }, StoreError>
  readonly input: (sessionId: string, key: string) => Effect.Effect<Option.Option<InputRow>, StoreError>
  readonly lastInput: (sessionId: string) => Effect.Effect<Option.Option<InputRow>, StoreError>
  readonly runningInput: (sessionId: string) => Effect.Effect<Option.Option<InputRow>, StoreError>
  /**
   * The input, after the session's inputs sent before it that have not ended (queued or running),
   * in the order they were sent; empty when the input is not stored.
   */
  readonly inputAfterUnfinished: (sessionId: string, key: string) => Effect.Effect<ReadonlyArray<InputRow>, StoreError>
  /** Every input not ended yet (queued or running), each session's in the order they were sent. */
  readonly unfinishedInputs: Effect.Effect<
    ReadonlyArray<{ readonly sessionId: string; readonly key: string }>,
    StoreError
  >
  /** Moves a queued input to running; false when it was not queued (an earlier delivery started it). */
  readonly startInput: (
    sessionId: string,
    key: string,
    executionId: string,
    now: number
  ) => Effect.Effect<boolean, StoreError>
  /**
   * Ends an input and, in the same transaction, stores the session's status and conversation
   * (its part on the session row, `state`, and its messages from index `from` on) and appends
   * the event saying so. False, and nothing stored, when the input had ended already.
   */
  readonly finishInput: (options: {
    readonly sessionId: string
    readonly key: string
    readonly status: "done" | "failed"
    readonly result: unknown
    readonly state: unknown
    readonly messages?: { readonly from: number; readonly rows: ReadonlyArray<unknown> }
    /** Events appended in order, each at its own time (`at`) or the input's end (`now`). */
    readonly events?: ReadonlyArray<{ readonly type: string; readonly data: unknown; readonly at?: number }>
    /** Transcript lines appended in order. */
    readonly transcript?: ReadonlyArray<string>
    readonly now: number
  }) => Effect.Effect<boolean, StoreError>
  /** The first `count` messages of a session's conversation, in order. */
  readonly messages: (sessionId: string, count: number) => Effect.Effect<ReadonlyArray<unknown>, StoreError>
  readonly countInterrupt: (sessionId: string, key: string) => Effect.Effect<void, StoreError>

  /** Records a question unless it was asked before (a resumed run); returns the stored row. */
  readonly ask: (row: Omit<ApprovalRow, "answer" | "answeredAt">) => Effect.Effect<ApprovalRow, StoreError>
  readonly approval: (executionId: string, toolUseId: string) => Effect.Effect<Option.Option<ApprovalRow>, StoreError>
  /** The newest unanswered question of a session for a tool_use id. */
  readonly pendingApproval: (
    sessionId: string,
    toolUseId: string
  ) => Effect.Effect<Option.Option<ApprovalRow>, StoreError>
  readonly pendingApprovals: (sessionId: string) => Effect.Effect<ReadonlyArray<ApprovalRow>, StoreError>
  /** Stores the first answer; false when the question was answered already. */
  readonly answer: (
    executionId: string,
    toolUseId: string,
    answer: unknown,
    now: number
  ) => Effect.Effect<boolean, StoreError>

  readonly appendEvents: (
    sessionId: string,
    events: ReadonlyArray<{ readonly type: string; readonly data: unknown; readonly at: number }>
  ) => Effect.Effect<void, StoreError>
  readonly events: (
    sessionId: string,
    after: number,
    limit: number
  ) => Effect.Effect<ReadonlyArray<EventRow>, StoreError>
  readonly appendTranscript: (sessionId: string, lines: ReadonlyArray<string>) => Effect.Effect<void, StoreError>
  readonly transcript: (sessionId: string) => Effect.Effect<ReadonlyArray<string>, StoreError>

  /** Marks a step as started; an existing mark means an earlier attempt got that far. */
  readonly beginStep: (
    executionId: string,
    step: string,
    runner: string,
    now: number
  ) => Effect.Effect<StepMark, StoreError>
  readonly setStepState: (executionId: string, step: string, state: string) => Effect.Effect<void, StoreError>
  /** The outcome stored for a durable step, if it executed. */
  readonly stepOutcome: (executionId: string, step: string) => Effect.Effect<Option.Option<unknown>, StoreError>
  /** Stores a step's outcome unless one is stored already: then returns that earlier one. */
  readonly recordStep: (
    executionId: string,
    step: string,
    outcome: unknown
  ) => Effect.Effect<Option.Option<unknown>, StoreError>
}

export class SessionStore extends Context.Tag("toolgate/Sessions/SessionStore")<SessionStore, SessionStoreService>() {}

const parse = (text: unknown): unknown => {
  if (typeof text !== "string") return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
const num = (u: unknown): number => (typeof u === "number" ? u : Number(u))
const optNum = (u: unknown): number | undefined => (u === null || u === undefined ? undefined : num(u))
const str = (u: unknown): string => (typeof u === "string" ? u : String(u))

const Rules = Schema.parseJson(Schema.Array(Schema.String))
const decodeRules = (u: unknown): ReadonlyArray<string> =>
  Option.getOrElse(Schema.decodeUnknownOption(Rules)(u), () => [])
const SessionStatusSchema = Schema.Literal("idle", "running", "stopped")
const InputKindSchema = Schema.Literal("prompt", "tool_uses")
const InputStatusSchema = Schema.Literal("queued", "running", "done", "failed")
const literal = <A>(schema: Schema.Schema<A>, u: unknown, fallback: A): A =>
  Option.getOrElse(Schema.decodeUnknownOption(schema)(u), () => fallback)

const sessionRow = (r: Record<string, unknown>): SessionRow => ({
  id: str(r.id),
  tokenHash: str(r.token_hash),
  config: parse(r.config),
  state: parse(r.state),
  grantedRules: decodeRules(r.granted_rules),
  status: literal(SessionStatusSchema, r.status, "stopped"),
  createdAt: num(r.created_at),
  updatedAt: num(r.updated_at)
})

const inputRow = (r: Record<string, unknown>): InputRow => ({
  sessionId: str(r.session_id),
  key: str(r.input_key),
  seq: num(r.seq),
  kind: literal(InputKindSchema, r.kind, "prompt"),
  body: parse(r.body),
  status: literal(InputStatusSchema, r.status, "failed"),
  executionId: r.execution_id === null || r.execution_id === undefined ? undefined : str(r.execution_id),
  result: parse(r.result),
  interrupts: num(r.interrupts),
  createdAt: num(r.created_at),
  finishedAt: optNum(r.finished_at)
})

const approvalRow = (r: Record<string, unknown>): ApprovalRow => ({
  executionId: str(r.execution_id),
  toolUseId: str(r.tool_use_id),
  sessionId: str(r.session_id),
  inputKey: str(r.input_key),
  request: parse(r.request),
  answer: parse(r.answer),
  askedAt: num(r.asked_at),
  expiresAt: num(r.expires_at),
  answeredAt: optNum(r.answered_at)
})

/** Rows of one INSERT (the databases' limits on parameters are far above). */
const MESSAGE_ROWS_PER_INSERT = 200

/** Events or transcript lines appended by one statement. */
const ROWS_PER_APPEND = 50

const chunks = <A>(items: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let at = 0; at < items.length; at += size) out.push(items.slice(at, at + size))
  return out
}

/** A unique-key clash: another writer took the row (retried by the caller). */
const isConflict = (e: SqlError) =>
  /unique|duplicate|constraint/i.test(`${e.message} ${String((e.cause as Error | undefined)?.message ?? e.cause)}`)

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Two runners starting together on PostgreSQL may race on CREATE TABLE IF NOT EXISTS: retry.
  yield* Effect.forEach(TABLES, (ddl) => sql.unsafe(ddl), { discard: true }).pipe(
    Effect.retry({ times: 5, schedule: Schedule.spaced("200 millis") }),
    Effect.mapError((e) => new StoreError({ operation: "create tables", reason: faultText(e) }))
  )

  const fail = (operation: string) => (e: SqlError) =>
    new StoreError({ operation, reason: isStorageFault(e) ? faultReason(e) : e.message })
  const rows = (operation: string) => <A>(effect: Effect.Effect<ReadonlyArray<A>, SqlError>) =>
    Effect.mapError(effect, fail(operation))
  const first = <A, B>(operation: string, effect: Effect.Effect<ReadonlyArray<A>, SqlError>, f: (a: A) => B) =>
    effect.pipe(
      Effect.map((rs) => (rs.length === 0 ? Option.none<B>() : Option.some(f(rs[0]!)))),
      Effect.mapError(fail(operation))
    )
  const exec = (operation: string) => (effect: Effect.Effect<unknown, SqlError>) =>
    effect.pipe(Effect.asVoid, Effect.mapError(fail(operation)))
  type Row = Record<string, unknown>
  // PostgreSQL writes rows into the free space of the pages it has: a full disk shows only when a
  // table grows. Emptied, the probe's table is a new, empty file, and its row needs a new page.
  const probeSpace = (now: number) =>
    sql.onDialectOrElse({
      pg: () =>
        sql.withTransaction(
          Effect.zipRight(
            sql`TRUNCATE toolgate_space_probe`,
            sql`INSERT INTO toolgate_space_probe (at) VALUES (${now})`
          )
        ),
      orElse: () => Effect.void
    })

  const session = (id: string) =>
    first("read session", sql<Row>`SELECT * FROM toolgate_sessions WHERE id = ${id}`, sessionRow)
  const input = (sessionId: string, key: string) =>
    first(
      "read input",
      sql<Row>`SELECT * FROM toolgate_inputs WHERE session_id = ${sessionId} AND input_key = ${key}`,
      inputRow
    )
  const approval = (executionId: string, toolUseId: string) =>
    first(
      "read approval",
      sql<Row>`SELECT * FROM toolgate_approvals WHERE execution_id = ${executionId} AND tool_use_id = ${toolUseId}`,
      approvalRow
    )

  /**
   * Appends rows numbered after the session's last one, in one statement (each row numbers itself
   * from what the table held before it); a concurrent writer's clash is retried.
   */
  /** Rows numbered after the session's last one (one statement). */
  const insertNumbered = (
    table: "toolgate_events" | "toolgate_transcript",
    sessionId: string,
    columns: ReadonlyArray<string>,
    rows: ReadonlyArray<Fragment>
  ) => {
    const arms = rows.map((row, i) =>
      sql`SELECT ${sessionId}, b.top + ${
        sql.literal(String(i + 1))
      }, ${row} FROM (SELECT COALESCE(MAX(seq), 0) AS top FROM ${sql(table)} WHERE session_id = ${sessionId}) b`
    )
    return sql`INSERT INTO ${sql(table)} (session_id, seq, ${sql.literal(columns.join(", "))}) ${
      sql.join(" UNION ALL ", false)(arms)
    }`
  }
  const eventRow = (e: { readonly type: string; readonly data: unknown; readonly at: number }) =>
    sql`${e.type}, ${JSON.stringify(e.data ?? null)}, CAST(${e.at} AS BIGINT)`
  const appendNumbered = (
    operation: string,
    table: "toolgate_events" | "toolgate_transcript",
    sessionId: string,
    columns: ReadonlyArray<string>,
    rows: ReadonlyArray<Fragment>
  ) =>
    insertNumbered(table, sessionId, columns, rows).pipe(
      Effect.retry({ times: 20, while: isConflict }),
      Effect.mapError(fail(operation))
    )

  return noteFaults(yield* StorageHealth, {
    insertSession: (row) =>
      sql`INSERT INTO toolgate_sessions ${
        sql.insert({
          id: row.id,
          token_hash: row.tokenHash,
          config: JSON.stringify(row.config),
          state: null,
          granted_rules: "[]",
          status: row.status,
          created_at: row.createdAt,
          updated_at: row.updatedAt
        })
      }`.pipe(exec("create session")),
    session,
    sessionsPage: (limit, after) => {
      const field = (name: string) =>
        sql.onDialectOrElse({
          pg: () => sql.literal(`(config::json->>'${name}')`),
          orElse: () => sql.literal(`json_extract(config, '$.${name}')`)
        })
      const where = after === undefined
        ? sql`1 = 1`
        : sql`(s.created_at > ${after.createdAt} OR (s.created_at = ${after.createdAt} AND s.id > ${after.id}))`
      return sql<Row>`
        SELECT s.id, s.status, s.created_at, s.updated_at, ${field("cwd")} AS cwd, ${field("model")} AS model,
          CASE WHEN ${field("script")} IS NULL THEN 0 ELSE 1 END AS scripted,
          (SELECT COUNT(*) FROM toolgate_inputs i WHERE i.session_id = s.id) AS inputs
        FROM toolgate_sessions s WHERE ${where} ORDER BY s.created_at, s.id LIMIT ${limit}`.pipe(
        Effect.map((rs) =>
          rs.map((r): SessionListRow => ({
            id: str(r.id),
            status: literal(SessionStatusSchema, r.status, "stopped"),
            cwd: r.cwd === null || r.cwd === undefined ? "" : str(r.cwd),
            model: r.model === null || r.model === undefined ? undefined : str(r.model),
            scripted: num(r.scripted) === 1,
            inputs: num(r.inputs),
            createdAt: num(r.created_at),
            updatedAt: num(r.updated_at)
          }))
        ),
        rows("list sessions")
      )
    },
    inputCount: (sessionId) =>
      sql<Row>`SELECT COUNT(*) AS n FROM toolgate_inputs WHERE session_id = ${sessionId}`.pipe(
        Effect.map((rs) => num(rs[0]?.n ?? 0)),
        Effect.mapError(fail("count inputs"))
      ),
    idleSince: (before, limit) =>
      sql<
        Row
      >`SELECT id FROM toolgate_sessions WHERE updated_at < ${before} AND status <> 'running' ORDER BY updated_at LIMIT ${limit}`
        .pipe(
          Effect.map((rs) => rs.map((r) => str(r.id))),
          rows("find idle sessions")
        ),
    deleteSession: (id) =>
      Effect.flatMap(
        // the cluster's tables exist once a runner has started; a store used alone has none
        sql`SELECT 1 FROM cluster_messages WHERE 1 = 0`.pipe(Effect.isSuccess),
        (hasCluster) =>
          sql
            .withTransaction(
              Effect.gen(function*() {
                const executions =
                  sql`SELECT execution_id FROM toolgate_inputs WHERE session_id = ${id} AND execution_id IS NOT NULL`
                const clusterMessages =
                  sql`SELECT request_id FROM cluster_messages WHERE (entity_type = 'toolgate/Session' AND entity_id = ${id})
              OR (entity_type LIKE 'Workflow/%' AND entity_id IN (${executions}))`
                if (hasCluster) {
                  yield* sql`DELETE FROM cluster_replies WHERE request_id IN (${clusterMessages})`
                  yield* sql`DELETE FROM cluster_messages WHERE request_id IN (${clusterMessages})`
                }
                yield* sql`DELETE FROM toolgate_steps WHERE execution_id IN (${executions})`
                yield* sql`DELETE FROM toolgate_step_outcomes WHERE execution_id IN (${executions})`
                yield* sql`DELETE FROM toolgate_approvals WHERE session_id = ${id}`
                yield* sql`DELETE FROM toolgate_events WHERE session_id = ${id}`
                yield* sql`DELETE FROM toolgate_transcript WHERE session_id = ${id}`
                yield* sql`DELETE FROM toolgate_messages WHERE session_id = ${id}`
                yield* sql`DELETE FROM toolgate_inputs WHERE session_id = ${id}`
                const deleted = yield* sql<Row>`DELETE FROM toolgate_sessions WHERE id = ${id} RETURNING id`
                return deleted.length > 0
              })
            )
      ).pipe(Effect.mapError(fail("delete session"))),
    ping: sql`SELECT 1`.pipe(exec("ping")),
    probe: (runner, now) =>
      sql`INSERT INTO toolgate_probe (runner, at) VALUES (${runner}, ${now})
        ON CONFLICT (runner) DO UPDATE SET at = ${now}`.pipe(Effect.zipRight(probeSpace(now)), exec("write")),
    setStatus: (id, status, now) =>
      sql`UPDATE toolgate_sessions SET status = ${status}, updated_at = ${now} WHERE id = ${id}`.pipe(
        exec("update session")
      ),
    addGrantedRules: (id, rules, now) =>
      sql
        .withTransaction(
          Effect.gen(function*() {
            const [row] = yield* sql<Row>`SELECT granted_rules FROM toolgate_sessions WHERE id = ${id}`
            const merged = Array.from(new Set([...decodeRules(row?.granted_rules), ...rules]))
            yield* sql`UPDATE toolgate_sessions SET granted_rules = ${
              JSON.stringify(merged)
            }, updated_at = ${now} WHERE id = ${id}`
          })
        )
        .pipe(exec("save granted rules")),

    insertInput: (row) =>
      Effect.gen(function*() {
        const body = JSON.stringify(row.body)
        const inserted = yield* sql<Row>`
          INSERT INTO toolgate_inputs (session_id, input_key, seq, kind, body, status, interrupts, created_at)
          SELECT ${row.sessionId}, ${row.key}, COALESCE(MAX(seq), 0) + 1, ${row.kind}, ${body}, 'queued', 0, ${row.createdAt}
          FROM toolgate_inputs WHERE session_id = ${row.sessionId}
          ON CONFLICT (session_id, input_key) DO NOTHING
          RETURNING *`
        if (inserted.length > 0) return { row: inputRow(inserted[0]!), created: true }
        const existing = yield* sql<
          Row
        >`SELECT * FROM toolgate_inputs WHERE session_id = ${row.sessionId} AND input_key = ${row.key}`
        return { row: inputRow(existing[0]!), created: false }
      }).pipe(Effect.mapError(fail("add input"))),
    input,
    lastInput: (sessionId) =>
      first(
        "read input",
        sql<
          Row
        >`SELECT * FROM toolgate_inputs WHERE session_id = ${sessionId} ORDER BY seq DESC, created_at DESC LIMIT 1`,
        inputRow
      ),
    runningInput: (sessionId) =>
      first(
        "read input",
        sql<
          Row
        >`SELECT * FROM toolgate_inputs WHERE session_id = ${sessionId} AND status = 'running' ORDER BY seq DESC LIMIT 1`,
        inputRow
      ),
    inputAfterUnfinished: (sessionId, key) =>
      sql<Row>`SELECT * FROM toolgate_inputs WHERE session_id = ${sessionId} AND (input_key = ${key} OR (
        status IN ('queued', 'running')
        AND seq < (SELECT seq FROM toolgate_inputs WHERE session_id = ${sessionId} AND input_key = ${key})
      )) ORDER BY seq`.pipe(
        Effect.map((rs) => rs.map(inputRow)),
        rows("read input")
      ),
    unfinishedInputs: sql<
      Row
    >`SELECT session_id, input_key FROM toolgate_inputs WHERE status IN ('queued', 'running') ORDER BY session_id, seq`
      .pipe(
        Effect.map((rs) => rs.map((r) => ({ sessionId: str(r.session_id), key: str(r.input_key) }))),
        rows("find unfinished inputs")
      ),
    // no transaction: a session marked running whose input is still queued (a crash between the
    // two) is started again by the input's next delivery, and marked idle when it ends
    startInput: (sessionId, key, executionId, now) =>
      Effect.gen(function*() {
        yield* sql`UPDATE toolgate_sessions SET status = 'running', updated_at = ${now} WHERE id = ${sessionId} AND status <> 'stopped'`
        const started = yield* sql<
          Row
        >`UPDATE toolgate_inputs SET status = 'running', execution_id = ${executionId} WHERE session_id = ${sessionId} AND input_key = ${key} AND status = 'queued' RETURNING input_key`
        return started.length > 0
      }).pipe(Effect.mapError(fail("start input"))),
    finishInput: ({ events, key, messages, now, result, sessionId, state, status, transcript }) =>
      sql
        .withTransaction(
          Effect.gen(function*() {
            const finished = yield* sql<Row>`UPDATE toolgate_inputs SET status = ${status}, result = ${
              JSON.stringify(result)
            }, finished_at = ${now} WHERE session_id = ${sessionId} AND input_key = ${key} AND status IN ('queued', 'running') RETURNING input_key`
            if (finished.length === 0) return false
            for (const chunk of chunks(events ?? [], ROWS_PER_APPEND)) {
              yield* insertNumbered(
                "toolgate_events",
                sessionId,
                ["type", "data", "at"],
                chunk.map((e) => eventRow({ ...e, at: e.at ?? now }))
              )
            }
            for (const chunk of chunks(transcript ?? [], ROWS_PER_APPEND)) {
              yield* insertNumbered("toolgate_transcript", sessionId, ["line"], chunk.map((line) => sql`${line}`))
            }
            if (state === undefined) {
              yield* sql`UPDATE toolgate_sessions SET status = CASE WHEN status = 'stopped' THEN 'stopped' ELSE 'idle' END, updated_at = ${now} WHERE id = ${sessionId}`
              return true
            }
            yield* sql`UPDATE toolgate_sessions SET state = ${
              JSON.stringify(state)
            }, status = CASE WHEN status = 'stopped' THEN 'stopped' ELSE 'idle' END, updated_at = ${now} WHERE id = ${sessionId}`
            if (messages === undefined) return true
            // rows from `from` on are replaced (rows past the conversation's count are never read)
            for (let at = 0; at < messages.rows.length; at += MESSAGE_ROWS_PER_INSERT) {
              const batch = messages.rows.slice(at, at + MESSAGE_ROWS_PER_INSERT)
              yield* sql`INSERT INTO toolgate_messages ${
                sql.insert(batch.map((m, i) => ({
                  session_id: sessionId,
                  idx: messages.from + at + i,
                  message: JSON.stringify(m)
                })))
              } ON CONFLICT (session_id, idx) DO UPDATE SET message = excluded.message`
            }
            return true
          })
        )
        .pipe(
          Effect.retry({ times: 20, while: isConflict }),
          Effect.mapError(fail("finish input"))
        ),
    messages: (sessionId, count) =>
      sql<Row>`SELECT message FROM toolgate_messages WHERE session_id = ${sessionId} AND idx < ${count} ORDER BY idx`
        .pipe(
          Effect.map((rs) => rs.map((r) => parse(r.message))),
          rows("read messages")
        ),
    countInterrupt: (sessionId, key) =>
      sql`UPDATE toolgate_inputs SET interrupts = interrupts + 1 WHERE session_id = ${sessionId} AND input_key = ${key}`
        .pipe(exec("count interrupt")),

    ask: (row) =>
      Effect.gen(function*() {
        yield* sql`INSERT INTO toolgate_approvals ${
          sql.insert({
            execution_id: row.executionId,
            tool_use_id: row.toolUseId,
            session_id: row.sessionId,
            input_key: row.inputKey,
            request: JSON.stringify(row.request),
            asked_at: row.askedAt,
            expires_at: row.expiresAt
          })
        } ON CONFLICT (execution_id, tool_use_id) DO NOTHING`
        const stored = yield* sql<
          Row
        >`SELECT * FROM toolgate_approvals WHERE execution_id = ${row.executionId} AND tool_use_id = ${row.toolUseId}`
        return approvalRow(stored[0]!)
      }).pipe(Effect.mapError(fail("record question"))),
    approval,
    pendingApproval: (sessionId, toolUseId) =>
      first(
        "read approval",
        sql<
          Row
        >`SELECT * FROM toolgate_approvals WHERE session_id = ${sessionId} AND tool_use_id = ${toolUseId} AND answered_at IS NULL ORDER BY asked_at DESC LIMIT 1`,
        approvalRow
      ),
    pendingApprovals: (sessionId) =>
      sql<
        Row
      >`SELECT * FROM toolgate_approvals WHERE session_id = ${sessionId} AND answered_at IS NULL ORDER BY asked_at`
        .pipe(
          Effect.map((rs) => rs.map(approvalRow)),
          rows("list approvals")
        ),
    answer: (executionId, toolUseId, answer, now) =>
      sql<Row>`UPDATE toolgate_approvals SET answer = ${JSON.stringify(answer)}, answered_at = ${now}
        WHERE execution_id = ${executionId} AND tool_use_id = ${toolUseId} AND answered_at IS NULL RETURNING tool_use_id`
        .pipe(
          Effect.map((rs) => rs.length > 0),
          Effect.mapError(fail("answer question"))
        ),

    appendEvents: (sessionId, events) =>
      Effect.forEach(
        chunks(events, ROWS_PER_APPEND),
        (chunk) =>
          appendNumbered(
            "append events",
            "toolgate_events",
            sessionId,
            ["type", "data", "at"],
            chunk.map(eventRow)
          ),
        { discard: true }
      ),
    events: (sessionId, after, limit) =>
      sql<
        Row
      >`SELECT seq, type, data, at FROM toolgate_events WHERE session_id = ${sessionId} AND seq > ${after} ORDER BY seq LIMIT ${limit}`
        .pipe(
          Effect.map((rs) =>
            rs.map((r) => ({ seq: num(r.seq), type: str(r.type), data: parse(r.data), at: num(r.at) }))
          ),
          rows("read events")
        ),
    appendTranscript: (sessionId, lines) =>
      Effect.forEach(
        chunks(lines, ROWS_PER_APPEND),
        (chunk) =>
          appendNumbered(
            "append transcript",
            "toolgate_transcript",
            sessionId,
            ["line"],
            chunk.map((line) => sql`${line}`)
          ),
        { discard: true }
      ),
    transcript: (sessionId) =>
      sql<Row>`SELECT line FROM toolgate_transcript WHERE session_id = ${sessionId} ORDER BY seq`.pipe(
        Effect.map((rs) => rs.map((r) => str(r.line))),
        rows("read transcript")
      ),

    beginStep: (executionId, step, runner, now) =>
      Effect.gen(function*() {
        const inserted = yield* sql<Row>`INSERT INTO toolgate_steps ${
          sql.insert({
            execution_id: executionId,
            step,
            state: "started",
            runner,
            started_at: now
          })
        } ON CONFLICT (execution_id, step) DO NOTHING RETURNING step`
        if (inserted.length > 0) return { _tag: "New" } as const
        const [existing] = yield* sql<
          Row
        >`SELECT state, runner FROM toolgate_steps WHERE execution_id = ${executionId} AND step = ${step}`
        return { _tag: "Existing", state: str(existing?.state), runner: str(existing?.runner) } as const
      }).pipe(Effect.mapError(fail("mark step"))),
    setStepState: (executionId, step, state) =>
      sql`UPDATE toolgate_steps SET state = ${state} WHERE execution_id = ${executionId} AND step = ${step}`.pipe(
        exec("mark step")
      ),
    stepOutcome: (executionId, step) =>
      first(
        "read step",
        sql<Row>`SELECT outcome FROM toolgate_step_outcomes WHERE execution_id = ${executionId} AND step = ${step}`,
        (r) => parse(r.outcome)
      ),
    recordStep: (executionId, step, outcome) =>
      Effect.gen(function*() {
        const inserted = yield* sql<Row>`INSERT INTO toolgate_step_outcomes ${
          sql.insert({ execution_id: executionId, step, outcome: JSON.stringify(outcome) })
        } ON CONFLICT (execution_id, step) DO NOTHING RETURNING step`
        if (inserted.length > 0) return Option.none()
        const [existing] = yield* sql<
          Row
        >`SELECT outcome FROM toolgate_step_outcomes WHERE execution_id = ${executionId} AND step = ${step}`
        return Option.some(parse(existing?.outcome))
      }).pipe(Effect.mapError(fail("record step")))
  })
})

/** Every storage fault of the store's operations is noted (readiness reports it). */
const noteFaults = (health: StorageHealthService, service: SessionStoreService): SessionStoreService => {
  // a COMMIT that fails is a defect of the SQL client: a storage fault is made this store's error
  const note = <A, R>(effect: Effect.Effect<A, StoreError, R>) =>
    effect.pipe(
      Effect.catchAllDefect((defect) =>
        isStorageFault(defect)
          ? Effect.fail(new StoreError({ operation: "commit", reason: faultReason(defect) }))
          : Effect.die(defect)
      ),
      Effect.tapError((e) => Effect.sync(() => isStorageFault(e) && health.noteFault(e.reason)))
    )
  const noted: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(service)) {
    noted[name] = Effect.isEffect(value)
      ? note(value as Effect.Effect<unknown, StoreError>)
      : (...args: Array<unknown>) =>
        note((value as (...a: Array<unknown>) => Effect.Effect<unknown, StoreError>)(...args))
  }
  return SessionStore.of(noted as unknown as SessionStoreService)
}

export const layer: Layer.Layer<SessionStore, StoreError, SqlClient.SqlClient | StorageHealth> = Layer.effect(
  SessionStore,
  make
)
