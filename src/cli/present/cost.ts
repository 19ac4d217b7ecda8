/**
 * What a session's tokens cost, for `total_cost_usd` and `modelUsage` in the result: Anthropic's
 * list prices per million tokens by model family (cache writes 1.25x input, cache reads 0.1x);
 * 0 for a model this table does not know (a scripted model, another provider).
 */
import type { Usage } from "../../ModelEvents.js"

interface Price {
  readonly input: number
  readonly output: number
}

const PRICES: ReadonlyArray<readonly [RegExp, Price]> = [
  [/opus-4-(?:[5-9]|\d{2})|opus-[5-9]/, { input: 5, output: 25 }],
  [/opus/, { input: 15, output: 75 }],
  [/sonnet/, { input: 3, output: 15 }],
  [/haiku-4|haiku-[5-9]/, { input: 1, output: 5 }],
  [/3-5-haiku|haiku-3-5/, { input: 0.8, output: 4 }],
  [/haiku/, { input: 0.25, output: 1.25 }]
]

const priceOf = (model: string): Price | undefined => PRICES.find(([pattern]) => pattern.test(model))?.[1]

export const costUsd = (model: string, usage: Usage): number => {
  const price = priceOf(model)
  if (price === undefined) return 0
  const perToken = (n: number, dollarsPerMillion: number) => (n * dollarsPerMillion) / 1_000_000
  return (
    perToken(usage.input_tokens, price.input) +
    perToken(usage.output_tokens, price.output) +
    perToken(usage.cache_creation_input_tokens, price.input * 1.25) +
    perToken(usage.cache_read_input_tokens, price.input * 0.1)
  )
}

/** The context window of a model, as Claude Code reports it in `modelUsage`. */
export const contextWindowOf = (model: string): number => (/\[1m\]$/.test(model) ? 1_000_000 : 200_000)
