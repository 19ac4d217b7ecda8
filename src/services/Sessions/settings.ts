/**
 * How this process serves sessions: its name among the runners, where session folders live,
 * which folders sessions may work in, and the default wait for a permission answer.
 */
import { Context, Layer } from "effect"

export interface ServeSettingsService {
  /** This runner as the others see it (`host:port`; `embedded` for the one-process server). */
  readonly runner: string
  /** Session folders (spilled results, background output, transcript files) live in `<stateDir>/sessions/<id>`. */
  readonly stateDir: string
  /** A session's cwd must be inside this folder; undefined allows any folder. */
  readonly workspaceRoot: string | undefined
  /** Default wait for a permission answer before the call is denied. */
  readonly approvalTimeoutMs: number
}

export class ServeSettings extends Context.Tag("toolgate/Sessions/ServeSettings")<ServeSettings, ServeSettingsService>() {}

export const layer = (settings: ServeSettingsService): Layer.Layer<ServeSettings> => Layer.succeed(ServeSettings, settings)
