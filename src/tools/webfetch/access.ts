/**
 * The session's explicit WebFetch host rules, read from the Settings service in the fiber's
 * context at check time (`Effect.serviceOption`), so the tool value needs no service. Without
 * Settings there are no rules, and loopback and private hosts stay refused (fail closed).
 */
import { Effect, Option } from "effect"
import { Settings } from "../../services/Settings.js"
import { internalAccessFrom, NO_INTERNAL_ACCESS, type InternalAccess } from "./urlPolicy.js"

export const currentInternalAccess: Effect.Effect<InternalAccess> = Effect.gen(function*() {
  const settings = yield* Effect.serviceOption(Settings)
  if (Option.isNone(settings)) return NO_INTERNAL_ACCESS
  const loaded = yield* settings.value.current
  return internalAccessFrom(loaded.rules)
})
