/**
 * Test files share one module registry per worker (vitest `isolate: false`). @effect/vitest's
 * `it.layer` writes the layer's `effect`, `scoped` and `layer` onto the shared `it` object, so
 * without this the next file's `it.layer(...)` would nest inside the previous file's layer and
 * get its services. Each file starts from the methods `it` had before any file ran.
 */
import { it } from "@effect/vitest"

const methods = ["effect", "scoped", "live", "scopedLive", "flakyTest", "layer", "prop"] as const
type Methods = Pick<typeof it, (typeof methods)[number]>

const store = globalThis as typeof globalThis & { __toolgateEffectVitestMethods?: Methods }
store.__toolgateEffectVitestMethods ??= Object.fromEntries(
  methods.map((name) => [name, it[name]])
) as unknown as Methods
Object.assign(it, store.__toolgateEffectVitestMethods)
