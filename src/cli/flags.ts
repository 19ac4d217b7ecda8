/**
 * Flags: each one is the @effect/cli option that parses it and a description of it (spellings,
 * whether it takes a value, choices) that the argv front end (`usage.ts`) checks argv against and
 * the help (`help.ts`) is printed from. One definition serves all three.
 */
import { Options } from "@effect/cli"
import type { Option } from "effect"

export type FlagGroup = "command" | "agent" | "schedule" | "common"

export interface FlagMeta {
  /** The canonical long name, without dashes (`allowed-tools`). */
  readonly name: string
  /** A one-letter spelling (`p` for `-p`). */
  readonly short?: string
  /** More long spellings, without dashes (Claude Code's `allowedTools`). */
  readonly spellings: ReadonlyArray<string>
  readonly takesValue: boolean
  readonly valueKind: "text" | "integer" | "float" | "choice"
  /** For `choice`: the values offered in help and errors. */
  readonly choices?: ReadonlyArray<string>
  /** For `choice`: values also accepted, not offered (Claude Code's spellings). */
  readonly hiddenChoices?: ReadonlyArray<string>
  /** May follow itself with several values (`--allowed-tools Read Bash`): which tokens count as one. */
  readonly variadic?: "rules" | "paths" | "json"
  /** A value given without the flag's value (`-r` alone); the flag then takes the next token only when `optionalValue` accepts it. */
  readonly optionalValue?: (token: string) => boolean
  readonly placeholder: string
  readonly description: string
  readonly group: FlagGroup
  readonly hidden?: boolean
}

export interface Flag<A> {
  readonly options: Options.Options<A>
  readonly meta: FlagMeta
}

interface Extra {
  readonly short?: string
  readonly spellings?: ReadonlyArray<string>
  readonly group?: FlagGroup
  readonly hidden?: boolean
}

const metaOf = (
  name: string,
  description: string,
  extra: Extra,
  rest: Omit<FlagMeta, "name" | "description" | "spellings" | "group">
): FlagMeta => ({
  name,
  description,
  spellings: extra.spellings ?? [],
  group: extra.group ?? "command",
  ...(extra.short === undefined ? {} : { short: extra.short }),
  ...(extra.hidden === true ? { hidden: true } : {}),
  ...rest
})

const textMeta = (name: string, placeholder: string, description: string, extra: Extra) =>
  metaOf(name, description, extra, { takesValue: true, valueKind: "text", placeholder })

export const boolean = (name: string, description: string, extra: Extra = {}): Flag<boolean> => ({
  options: Options.boolean(name).pipe(Options.withDescription(description)),
  meta: metaOf(name, description, extra, { takesValue: false, valueKind: "text", placeholder: "" })
})

export const optionalText = (
  name: string,
  placeholder: string,
  description: string,
  extra: Extra = {}
): Flag<Option.Option<string>> => ({
  options: Options.text(name).pipe(Options.withDescription(description), Options.optional),
  meta: textMeta(name, placeholder, description, extra)
})

/** A flag that may be given without a value (`-r` alone, `-r <id>`): `none` when absent, `""` when given bare. */
export const textWithOptionalValue = (
  name: string,
  placeholder: string,
  description: string,
  takes: (token: string) => boolean,
  extra: Extra = {}
): Flag<Option.Option<string>> => ({
  options: Options.text(name).pipe(Options.withDescription(description), Options.optional),
  meta: { ...textMeta(name, placeholder, description, extra), optionalValue: takes }
})

export const repeatedText = (
  name: string,
  placeholder: string,
  description: string,
  extra: Extra & { readonly variadic?: FlagMeta["variadic"] } = {}
): Flag<ReadonlyArray<string>> => ({
  options: Options.text(name).pipe(Options.withDescription(description), Options.repeated),
  meta: {
    ...textMeta(name, placeholder, description, extra),
    ...(extra.variadic === undefined ? {} : { variadic: extra.variadic })
  }
})

export const optionalInteger = (
  name: string,
  placeholder: string,
  description: string,
  extra: Extra = {}
): Flag<Option.Option<number>> => ({
  options: Options.integer(name).pipe(Options.withDescription(description), Options.optional),
  meta: metaOf(name, description, extra, { takesValue: true, valueKind: "integer", placeholder })
})

export const floatWithDefault = (
  name: string,
  placeholder: string,
  fallback: number,
  description: string,
  extra: Extra = {}
): Flag<number> => ({
  options: Options.float(name).pipe(Options.withDescription(description), Options.withDefault(fallback)),
  meta: metaOf(name, description, extra, { takesValue: true, valueKind: "float", placeholder })
})

const choiceMeta = (
  name: string,
  choices: ReadonlyArray<string>,
  hidden: ReadonlyArray<string>,
  description: string,
  extra: Extra
) =>
  metaOf(name, description, extra, {
    takesValue: true,
    valueKind: "choice",
    choices,
    ...(hidden.length === 0 ? {} : { hiddenChoices: hidden }),
    placeholder: `<${choices.join("|")}>`
  })

export const choiceWithDefault = <C extends string>(
  name: string,
  choices: ReadonlyArray<C>,
  fallback: C,
  description: string,
  extra: Extra = {}
): Flag<C> => ({
  options: Options.choice(name, choices).pipe(Options.withDescription(description), Options.withDefault(fallback)),
  meta: choiceMeta(name, choices, [], description, extra)
})

export const optionalChoice = <C extends string>(
  name: string,
  choices: ReadonlyArray<C>,
  hiddenChoices: ReadonlyArray<string>,
  description: string,
  extra: Extra = {}
): Flag<Option.Option<string>> => ({
  options: Options.choice(name, [...choices, ...hiddenChoices]).pipe(
    Options.withDescription(description),
    Options.optional
  ),
  meta: choiceMeta(name, choices, hiddenChoices, description, extra)
})

type OptionsRecord<R extends Record<string, Flag<any>>> = { readonly [K in keyof R]: R[K]["options"] }

/** The @effect/cli options of a record of flags, for `Command.make`. */
export const optionsOf = <R extends Record<string, Flag<any>>>(flags: R): OptionsRecord<R> =>
  Object.fromEntries(Object.entries(flags).map(([key, flag]) => [key, flag.options])) as OptionsRecord<R>

export const metasOf = (...groups: ReadonlyArray<Record<string, Flag<any>>>): ReadonlyArray<FlagMeta> =>
  groups.flatMap((flags) => Object.values(flags).map((flag) => flag.meta))

/** Every spelling of a flag as typed: `--name`, `--spelling`, `-s`. */
export const spellingsOf = (meta: FlagMeta): ReadonlyArray<string> => [
  `--${meta.name}`,
  ...meta.spellings.map((s) => `--${s}`),
  ...(meta.short === undefined ? [] : [`-${meta.short}`])
]
