/**
 * Stages 1 and 2 of a call: repair the shapes the tool knows models get wrong, decode the input
 * with the tool's schema (strict: unknown keys are errors unless the schema says otherwise; the
 * failure text is Claude Code's, see internal/formatIssues.ts), then the tool's own
 * `validateInput`. Decoders are built once per tool.
 *
 * @since 0.1.0
 */
import type { Effect, ParseResult } from "effect"
import { Context, Either, Layer, Schema } from "effect"
import { InvalidToolInput, type InputRejected } from "../Errors.js"
import { rawIssueList, sentences, zodIssues } from "../internal/formatIssues.js"
import type { AnyTool, ToolCheckContext } from "../Tool.js"
import { UnparsableInput } from "../Messages.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface InputValidatorService {
  /** Synchronous decode (the scheduler needs decoded inputs to plan batches). */
  readonly decode: (tool: AnyTool, input: unknown) => Either.Either<unknown, InvalidToolInput>
  readonly validate: (tool: AnyTool, input: unknown, ctx: ToolCheckContext) => Effect.Effect<void, InputRejected>
}

/**
 * @since 0.1.0
 * @category services
 */
export class InputValidator extends Context.Tag("toolgate/InputValidator")<InputValidator, InputValidatorService>() {}

type Decoder = (input: unknown) => Either.Either<unknown, InvalidToolInput>

const decoders = new WeakMap<AnyTool, Decoder>()

/**
 * An input that is not an object is read as Claude Code reads it: its own keys (an array's or a
 * string's indices) as parameters, none for null or a number, so the model is told which
 * parameters are missing and which were not expected.
 */
const asObject = (input: unknown): unknown =>
  typeof input === "string" || Array.isArray(input)
    ? Object.fromEntries(Object.entries(input))
    : input === null || input === undefined || typeof input !== "object"
    ? {}
    : input

const makeDecoder = (tool: AnyTool): Decoder => {
  const notObject = (input: UnparsableInput) =>
    new InvalidToolInput({ toolName: tool.name, issues: [`The input is not valid JSON (${input.reason})`] })
  const repair = (
    input: unknown
  ) => (tool.repairInput === undefined ? input : (tool.repairInput(input as Record<string, unknown>) ?? input))
  if (tool.inputSchema._tag === "JsonSchema") {
    const { validate } = tool.inputSchema
    return (given) => {
      if (given instanceof UnparsableInput) return Either.left(notObject(given))
      const input = asObject(given)
      const result = validate(repair(input))
      return result.ok
        ? Either.right(result.value)
        : Either.left(new InvalidToolInput({ toolName: tool.name, issues: result.issues }))
    }
  }
  const decodeSchema = Schema.decodeUnknownEither(tool.inputSchema.schema, { onExcessProperty: "error", errors: "all" })
  return (given) => {
    if (given instanceof UnparsableInput) return Either.left(notObject(given))
    const input = asObject(given)
    return Either.mapLeft(decodeSchema(repair(input)), (error: ParseResult.ParseError) => {
      const issues = zodIssues(error.issue)
      const lines = sentences(issues)
      const raw = rawIssueList(issues)
      return new InvalidToolInput({
        toolName: tool.name,
        issues: lines.length === 0 ? ["Invalid input"] : lines,
        ...(raw === undefined ? {} : { issueList: raw })
      })
    })
  }
}

/**
 * @since 0.1.0
 * @category utils
 */
export const decodeInput = (tool: AnyTool, input: unknown): Either.Either<unknown, InvalidToolInput> => {
  let decoder = decoders.get(tool)
  if (decoder === undefined) {
    decoder = makeDecoder(tool)
    decoders.set(tool, decoder)
  }
  return decoder(input)
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make: InputValidatorService = {
  decode: decodeInput,
  validate: (tool, input, ctx) => tool.validateInput(input, ctx)
}

/**
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<InputValidator> = Layer.succeed(InputValidator, make)
