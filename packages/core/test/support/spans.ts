/**
 * A tracer that keeps every span it opens, for tests that read spans, their events, parents and exits.
 */
import { Tracer } from "effect"

/** A tracer and the spans it has opened so far, in the order they were opened. */
export const recordingTracer = (): {
  readonly spans: Array<Tracer.NativeSpan>
  readonly tracer: Tracer.Tracer
} => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  return { spans, tracer }
}
