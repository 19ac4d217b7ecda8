/**
 * A served session's conversation in storage: its messages one row each (an input adds its own
 * and, when it merged into the last user message, rewrites that one), and the rest (session
 * context, usage, turns, message count) on the session row. Each runner keeps the messages of
 * the sessions it ran last in memory, checked against the input that committed them: an input
 * reads no message rows when its session's last input ran here.
 *
 * Sessions stored by earlier versions have the whole conversation on the session row; their
 * next commit moves the messages to rows.
 */
import { Effect, Option, Schema } from "effect"
import { PermissionModeName } from "../../Permission.js"
import type { Conversation } from "../Agent.js"
import type { ModelMessage } from "../ModelClient.js"
import { toJsonValue } from "./json.js"
import { Message, Usage } from "./model.js"
import type { SessionStoreService } from "./store.js"

const StoredSession = Schema.Struct({
  sessionId: Schema.String,
  sessionDir: Schema.String,
  projectDir: Schema.String,
  cwd: Schema.String,
  additionalDirectories: Schema.Array(Schema.String),
  permissionMode: PermissionModeName,
  transcriptPath: Schema.optionalWith(Schema.String, { exact: true })
})

/** The conversation on the session row, without its messages. */
const StoredHeader = Schema.Struct({
  session: StoredSession,
  usage: Usage,
  turns: Schema.Number,
  messageCount: Schema.Number,
  /** The execution of the input whose commit stored this conversation. */
  committedBy: Schema.String
})

/** What earlier versions stored on the session row: the whole conversation. */
const StoredWhole = Schema.Struct({
  messages: Schema.Array(Message),
  session: StoredSession,
  usage: Usage,
  turns: Schema.Number
})

const StoredState = Schema.Union(StoredHeader, StoredWhole)

/** What a session's view shows of its conversation (either way it is stored). */
export const StoredSummary = Schema.Struct({
  session: Schema.Struct({ permissionMode: PermissionModeName }),
  usage: Usage,
  turns: Schema.Number
})

const Messages = Schema.Array(Message)

/** The messages of a conversation as its last commit on this runner left them. */
export interface CachedMessages {
  readonly committedBy: string
  readonly messages: ReadonlyArray<ModelMessage>
}

/** The last few conversations committed on this runner, by session id. */
export interface ConversationCache {
  readonly get: (sessionId: string) => CachedMessages | undefined
  readonly set: (sessionId: string, entry: CachedMessages) => void
}

export const makeConversationCache = (capacity: number): ConversationCache => {
  const entries = new Map<string, CachedMessages>()
  return {
    get: (sessionId) => entries.get(sessionId),
    set: (sessionId, entry) => {
      entries.delete(sessionId)
      entries.set(sessionId, entry)
      if (entries.size > capacity) entries.delete(entries.keys().next().value!)
    }
  }
}

/** A stored conversation, and whether its messages are still on the session row (an earlier version's). */
export interface Loaded {
  readonly conversation: Conversation
  readonly whole: boolean
}

export const loadConversation = (
  store: SessionStoreService,
  cache: ConversationCache,
  sessionId: string,
  state: unknown
): Effect.Effect<Option.Option<Loaded>> =>
  Effect.gen(function*() {
    if (state === null || state === undefined) return Option.none()
    const stored = yield* Effect.orDie(Schema.decodeUnknown(StoredState)(state))
    if ("messages" in stored) {
      return Option.some({ conversation: stored as unknown as Conversation, whole: true })
    }
    const cached = cache.get(sessionId)
    const messages = cached !== undefined && cached.committedBy === stored.committedBy &&
        cached.messages.length === stored.messageCount
      ? cached.messages
      : yield* Effect.orDie(
        Effect.flatMap(
          store.messages(sessionId, stored.messageCount),
          Schema.decodeUnknown(Messages)
        )
      )
    if (messages.length !== stored.messageCount) {
      return yield* Effect.dieMessage(
        `session ${sessionId}: ${messages.length} of its ${stored.messageCount} messages are stored`
      )
    }
    const conversation = { messages, session: stored.session, usage: stored.usage, turns: stored.turns }
    return Option.some({ conversation: conversation as unknown as Conversation, whole: false })
  })

/** What a commit stores of the conversation an input produced. */
export interface ConversationWrite {
  /** The session row's part. */
  readonly header: unknown
  /** Message rows from this index on are replaced by `rows`. */
  readonly from: number
  readonly rows: ReadonlyArray<unknown>
  /** The messages after the commit (for the cache). */
  readonly messages: ReadonlyArray<ModelMessage>
}

/** The first message an input changed: the last one when it was merged into, else the first it added. */
const firstChanged = (before: ReadonlyArray<ModelMessage>, after: ReadonlyArray<ModelMessage>): number => {
  const last = before.length - 1
  return last >= 0 && JSON.stringify(before[last]) !== JSON.stringify(after[last]) ? last : before.length
}

export const conversationWrite = (
  before: Loaded | undefined,
  after: Conversation,
  committedBy: string
): ConversationWrite => {
  const from = before === undefined || before.whole ? 0 : firstChanged(before.conversation.messages, after.messages)
  const rows = after.messages.slice(from).map((m) => toJsonValue(m) as ModelMessage)
  const kept = before === undefined ? [] : before.conversation.messages.slice(0, from)
  return {
    header: toJsonValue({
      session: after.session,
      usage: after.usage,
      turns: after.turns,
      messageCount: after.messages.length,
      committedBy
    }),
    from,
    rows,
    messages: [...kept, ...rows]
  }
}
