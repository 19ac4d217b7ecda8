/**
 * Raw stream events → typed model events, shared by the SDK layer and the scripted layer so a
 * replay goes through exactly the code a live run does.
 */
import { Clock, Effect, Stream } from "effect"
import { Assembler } from "./assemble.js"
import type { ModelError } from "./errors.js"
import type { ModelEvent } from "../../ModelEvents.js"

/** Each raw event is passed on as `Raw` (ms since `t0`) before what it assembles to. */
export const assembleStream = (
  raw: Stream.Stream<unknown, ModelError>,
  t0: number
): Stream.Stream<ModelEvent, ModelError> =>
  Stream.suspend(() => {
    const assembler = new Assembler()
    const step = (event: unknown): Stream.Stream<ModelEvent, ModelError> =>
      Stream.unwrap(
        Effect.map(Clock.currentTimeMillis, (now) => {
          const { events, error } = assembler.push(event)
          const out = Stream.fromIterable<ModelEvent>([{ _tag: "Raw", event, atMs: now - t0 }, ...events])
          return error === undefined ? out : Stream.concat(out, Stream.fail(error))
        })
      )
    return Stream.concat(
      raw.pipe(Stream.flatMap(step)),
      Stream.suspend(() => {
        const error = assembler.end()
        return error === undefined ? Stream.empty : Stream.fail(error)
      })
    )
  })
