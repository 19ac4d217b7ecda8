/**
 * The text as bash's lexer sees it, one character at a time. Outside single quotes, comments and
 * here-document bodies bash removes every backslash-newline before it looks at the text, so the
 * reading methods here skip those pairs; the `raw` ones do not.
 */
import { OutsideGrammar } from "./reading.js"

export const outside = (reason: string): never => {
  throw new OutsideGrammar(reason)
}

export class Cursor {
  pos = 0

  constructor(readonly text: string) {}

  /** Skips backslash-newline pairs (line continuations). */
  skipContinuations(): void {
    while (this.text.charCodeAt(this.pos) === 92 && this.text.charCodeAt(this.pos + 1) === 10) this.pos += 2
  }

  /** The next character after line continuations; undefined at the end. */
  peek(): string | undefined {
    this.skipContinuations()
    return this.text[this.pos]
  }

  /** The character after the next one, line continuations skipped in between. */
  peekSecond(): string | undefined {
    const saved = this.pos
    this.skipContinuations()
    if (this.pos >= this.text.length) return undefined
    this.pos++
    const second = this.peek()
    this.pos = saved
    return second
  }

  /** Takes the next character (after line continuations). */
  next(): string | undefined {
    const ch = this.peek()
    if (ch !== undefined) this.pos++
    return ch
  }

  /** Takes `expected` when it comes next. */
  eat(expected: string): boolean {
    const saved = this.pos
    for (const ch of expected) {
      if (this.next() !== ch) {
        this.pos = saved
        return false
      }
    }
    return true
  }

  /** The next character with no continuation handling (single quotes, comments, bodies). */
  rawNext(): string | undefined {
    const ch = this.text[this.pos]
    if (ch !== undefined) this.pos++
    return ch
  }

  atEnd(): boolean {
    return this.peek() === undefined
  }
}
