/**
 * Numeric settings from the environment, read through Config (so a ConfigProvider sets them in
 * tests). A value that is missing, not a number or not positive falls back to the default, as
 * Claude Code treats its own variables.
 */
import { Config, Effect } from "effect"

export const positiveIntConfig = (name: string, fallback: number): Config.Config<number> =>
  Config.string(name).pipe(
    Config.map((raw) => {
      const value = Number.parseInt(raw.trim(), 10)
      return Number.isFinite(value) && value > 0 ? value : fallback
    }),
    Config.orElse(() => Config.succeed(fallback))
  )

export const positiveIntSetting = (name: string, fallback: number): Effect.Effect<number> =>
  positiveIntConfig(name, fallback).pipe(Effect.orElseSucceed(() => fallback))
