/**
 * The shared harness: rounds (warm-up, then measured), robust statistics, metrics as ratios
 * against a baseline measured in the same run, a table for people and `bench/results.json`.
 *
 * Machines are shared and noisy, so a ratio is the median of per-round ratios: the benchmark
 * and its baseline run back to back inside each round (in alternating order), and a slow
 * moment hits both sides of the same round.
 */
import * as fs from "node:fs"
import * as path from "node:path"

export interface Spread {
  readonly kind: "p25-p75" | "min-max"
  readonly low: number
  readonly high: number
}

export interface Metric {
  /** Dotted, stable: `<benchmark>.<case>.<what>`. */
  readonly name: string
  /** The median over measured rounds. */
  readonly value: number
  readonly unit: string
  /** What the value is compared with, measured in the same run (undefined when nothing is). */
  readonly baseline: { readonly name: string; readonly value: number } | undefined
  /** value / baseline, as the median of per-round ratios when rounds are paired. */
  readonly ratio: number | undefined
  /** Spread of the value over measured rounds. */
  readonly spread: Spread | undefined
  /** Spread of the per-round ratios. */
  readonly ratioSpread?: Spread
  readonly rounds?: number
  /** The target, in words, and whether this run meets it. */
  readonly target?: string
  readonly meets?: boolean
  readonly note?: string
}

export const quantile = (values: ReadonlyArray<number>, q: number): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const at = (sorted.length - 1) * q
  const lo = Math.floor(at)
  const hi = Math.ceil(at)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo)
}

export const median = (values: ReadonlyArray<number>): number => quantile(values, 0.5)

export const iqr = (values: ReadonlyArray<number>): Spread => ({
  kind: "p25-p75",
  low: quantile(values, 0.25),
  high: quantile(values, 0.75)
})

export const minMax = (values: ReadonlyArray<number>): Spread => ({
  kind: "min-max",
  low: Math.min(...values),
  high: Math.max(...values)
})

export interface PairedOptions {
  readonly warmup: number
  readonly rounds: number
}

/**
 * Runs `warmup` + `rounds` rounds; in each round every side runs once, in an order that rotates
 * from round to round. Returns each side's measured samples, in round order.
 */
export const pairedRounds = async <K extends string, T = number>(
  sides: ReadonlyArray<readonly [K, () => Promise<T>]>,
  options: PairedOptions
): Promise<Record<K, Array<T>>> => {
  const samples = Object.fromEntries(sides.map(([k]) => [k, [] as Array<T>])) as unknown as Record<K, Array<T>>
  for (let round = 0; round < options.warmup + options.rounds; round++) {
    for (let i = 0; i < sides.length; i++) {
      const [key, run] = sides[(round + i) % sides.length]!
      const sample = await run()
      if (round >= options.warmup) samples[key].push(sample)
    }
  }
  return samples
}

/** Wall time and this process's CPU time (all threads: GC helpers included) of one sample, in ms. */
export interface Timing {
  readonly wall: number
  readonly cpu: number
}

export const timed = async (work: () => Promise<void>): Promise<Timing> => {
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  await work()
  const wall = performance.now() - t0
  const c = process.cpuUsage(c0)
  return { wall, cpu: (c.user + c.system) / 1000 }
}

/** A metric for `value` samples against `baseline` samples of the same rounds. */
export const ratioMetric = (
  fields: {
    name: string
    unit: string
    target?: string
    meets?: (m: { value: number; ratio: number }) => boolean
    note?: string
  },
  value: ReadonlyArray<number>,
  baseline: { readonly name: string; readonly samples: ReadonlyArray<number> }
): Metric => {
  const ratios = value.map((v, i) => v / baseline.samples[i]!)
  const m = median(value)
  const ratio = median(ratios)
  return {
    name: fields.name,
    value: m,
    unit: fields.unit,
    baseline: { name: baseline.name, value: median(baseline.samples) },
    ratio,
    spread: iqr(value),
    ratioSpread: iqr(ratios),
    rounds: value.length,
    ...(fields.target === undefined ? {} : { target: fields.target }),
    ...(fields.meets === undefined ? {} : { meets: fields.meets({ value: m, ratio }) }),
    ...(fields.note === undefined ? {} : { note: fields.note })
  }
}

/** A metric with no baseline (the baseline's own figure, or an absolute count). */
export const plainMetric = (
  fields: {
    name: string
    unit: string
    target?: string
    meets?: (value: number) => boolean
    note?: string
    spread?: "iqr" | "minmax"
  },
  samples: ReadonlyArray<number>
): Metric => {
  const m = median(samples)
  return {
    name: fields.name,
    value: m,
    unit: fields.unit,
    baseline: undefined,
    ratio: undefined,
    spread: samples.length > 1 ? (fields.spread === "minmax" ? minMax(samples) : iqr(samples)) : undefined,
    rounds: samples.length,
    ...(fields.target === undefined ? {} : { target: fields.target }),
    ...(fields.meets === undefined ? {} : { meets: fields.meets(m) }),
    ...(fields.note === undefined ? {} : { note: fields.note })
  }
}

/** Keeps values alive so the JIT cannot drop the work that produced them. */
let sinkValue = 0
export const sink = (value: unknown): void => {
  if (typeof value === "number") sinkValue ^= value | 0
  else if (typeof value === "string") sinkValue ^= value.length
  else if (Array.isArray(value)) sinkValue ^= value.length
  else if (value !== null && value !== undefined) sinkValue ^= 1
}
export const sinkResult = (): number => sinkValue

export const fmt = (n: number | undefined, digits = 3): string => {
  if (n === undefined || Number.isNaN(n)) return "–"
  const abs = Math.abs(n)
  if (abs >= 1000) return n.toFixed(0)
  if (abs >= 100) return n.toFixed(1)
  if (abs >= 10) return n.toFixed(2)
  return n.toPrecision(digits)
}

const spreadText = (s: Spread | undefined): string => (s === undefined ? "" : `${fmt(s.low)}–${fmt(s.high)}`)

export const formatTable = (metrics: ReadonlyArray<Metric>): string => {
  const header = ["metric", "value", "unit", "spread", "baseline", "ratio", "ratio spread", "target"]
  const rows = metrics.map((m) => [
    m.name,
    fmt(m.value),
    m.unit,
    spreadText(m.spread),
    m.baseline === undefined ? "" : `${m.baseline.name} ${fmt(m.baseline.value)}`,
    m.ratio === undefined ? "" : `${fmt(m.ratio)}×`,
    spreadText(m.ratioSpread),
    m.target === undefined ? "" : `${m.target}${m.meets === undefined ? "" : m.meets ? " ✓" : " ✗"}`
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: ReadonlyArray<string>) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`
  return [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)].join("\n")
}

/** How busy the machine was: the figures of a loaded machine are noisier (and CPU time inflates). */
export interface MachineLoad {
  readonly cpus: number
  readonly cpuModel: string
  /** os.loadavg() (1, 5, 15 minutes) when the run started and when it ended. */
  readonly loadavgStart: ReadonlyArray<number>
  readonly loadavgEnd: ReadonlyArray<number>
}

export interface Results {
  readonly generatedAt: string
  readonly node: string
  readonly platform: string
  readonly cpus: number
  readonly machine: MachineLoad
  readonly durationMs: number
  readonly metrics: ReadonlyArray<Metric>
}

export const writeResults = (file: string, results: Results): void => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(tmp, `${JSON.stringify(results, null, 2)}\n`)
  fs.renameSync(tmp, file)
}

/** A benchmark: a name and a function returning its metrics. */
export interface Benchmark {
  readonly name: string
  readonly run: () => Promise<ReadonlyArray<Metric>>
}

export const now = (): number => performance.now()

/** Forces a full collection when the process runs with `--expose-gc` (run.ts makes sure of it). */
export const collectGarbage = (): void => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc !== undefined) {
    gc()
    gc()
  }
}
