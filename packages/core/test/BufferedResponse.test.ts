/**
 * `BufferedResponse.read` (issue #17): a response's body read into memory up to a limit. A streamed body is read as it
 * arrives and stopped once past the limit (an endless one included), a declared Content-Length above the limit is
 * refused at its first chunk, a buffered body larger than the limit is refused as it is; each failure is an
 * `HttpClientError` caused by a `SpotError.ResponseTooLargeError`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { HttpClientRequest, HttpClientResponse } from "effect/http"
import { BufferedResponse, SpotError } from "../src/index.ts"

const request = HttpClientRequest.get("http://venue.test/api")
const KiB = 1024

/** A response whose body is `chunks` chunks of 1 KiB (endless without a count), counting those pulled. */
const streamed = (chunks: number, headers: Record<string, string> = {}) => {
  const pulled = { count: 0 }
  const chunk = new Uint8Array(KiB).fill(97)
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled.count >= chunks) return controller.close()
      pulled.count++
      controller.enqueue(chunk)
    }
  }, { highWaterMark: 0 })
  return { pulled, response: HttpClientResponse.fromWeb(request, new Response(body, { headers })) }
}

const tooLarge = (exit: Exit.Exit<unknown, unknown>): SpotError.ResponseTooLargeError => {
  assert.isTrue(Exit.isFailure(exit))
  const error = (exit as Exit.Failure<unknown, { readonly reason: { readonly cause: unknown } }>).cause
  const failure = error.reasons.find((reason) => reason._tag === "Fail")
  const cause = (failure as { readonly error: { readonly reason: { readonly cause: unknown } } }).error.reason.cause
  assert.instanceOf(cause, SpotError.ResponseTooLargeError)
  return cause as SpotError.ResponseTooLargeError
}

describe("BufferedResponse.read", () => {
  it.effect("reads a streamed body within the limit whole", () =>
    Effect.gen(function*() {
      const { response } = streamed(8)
      const read = yield* BufferedResponse.read(response, 8 * KiB)
      assert.strictEqual(read.byteLength, 8 * KiB)
      assert.strictEqual(read.bodyText, "a".repeat(8 * KiB))
    }))

  it.effect("stops an endless body just past the limit", () =>
    Effect.gen(function*() {
      const { pulled, response } = streamed(Infinity)
      const error = tooLarge(yield* Effect.exit(BufferedResponse.read(response, 64 * KiB)))
      assert.strictEqual(error.limit, 64 * KiB)
      assert.isUndefined(error.declared)
      // 65 chunks passed the limit; the stream may have been asked for a few more before it was closed.
      assert.isAtMost(pulled.count, 70)
    }))

  it.effect("refuses a declared Content-Length above the limit at its first chunk", () =>
    Effect.gen(function*() {
      const { pulled, response } = streamed(Infinity, { "content-length": String(1024 * 1024 * 1024) })
      const error = tooLarge(yield* Effect.exit(BufferedResponse.read(response, 64 * KiB)))
      assert.strictEqual(error.declared, 1024 * 1024 * 1024)
      assert.isAtMost(pulled.count, 4)
    }))

  it.effect("refuses a buffered body larger than the limit, counting its UTF-8 bytes", () =>
    Effect.gen(function*() {
      const buffered = new BufferedResponse.BufferedResponse({
        request,
        status: 200,
        headers: {},
        body: "€".repeat(10)
      })
      assert.strictEqual(buffered.byteLength, 30)
      assert.strictEqual(yield* BufferedResponse.read(buffered, 30), buffered)
      tooLarge(yield* Effect.exit(BufferedResponse.read(buffered, 29)))
    }))
})
