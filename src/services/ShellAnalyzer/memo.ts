/**
 * Memoisation on unit objects: analyses are cached per command string, so the pure per-unit
 * facts (read-only verdict, guards, path operands, rendered text) are computed once per unit.
 */
import type { Unit } from "./units.js"

export const memoByUnit = <A>(compute: (unit: Unit) => A): (unit: Unit) => A => {
  const cache = new WeakMap<Unit, { readonly value: A }>()
  return (unit) => {
    const hit = cache.get(unit)
    if (hit !== undefined) return hit.value
    const value = compute(unit)
    cache.set(unit, { value })
    return value
  }
}
