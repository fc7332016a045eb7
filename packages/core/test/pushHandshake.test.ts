/**
 * The private push handshake's timestamp (src/internal/push/handshake.ts): on the venue's clock as the client
 * estimates it, even for a program that has made no signed REST request yet, whose estimate nothing else has set.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { HttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { Push, SpotClient } from "../src/index.ts"
import { privateHeaders } from "../src/internal/push/handshake.ts"
import { VenueText } from "../src/internal/push/venueText.ts"
import { clientOptions, FakeVenue, NOW, SERVER_TIME, withClient } from "./support/FakeVenue.ts"

const HOUR = 3_600_000

const handshakeTimestamp = (client: SpotClient.Service) =>
  Effect.gen(function*() {
    const text = new VenueText({ secrets: [], url: "wss://venue.test/v2/ws/private" })
    const headers = yield* Effect.flatten(privateHeaders(clientOptions.credentials, "spotkit-test", text))
    return Number(headers[Push.headers.timestamp])
  }).pipe(Effect.provideService(SpotClient.SpotClient, client))

describe("the private handshake's timestamp", () => {
  it.effect("is on the venue's clock before any signed REST request", () => {
    const venue = new FakeVenue({ skewMillis: HOUR })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const timestamp = yield* handshakeTimestamp(client)
        assert.isAtMost(Math.abs(timestamp - (NOW + HOUR)), 1_000, `timestamp ${timestamp}`)
      }))
  })

  it.effect("follows the venue's clock on every handshake: a refused one answers no time to learn from", () => {
    const venue = new FakeVenue({ skewMillis: HOUR })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        yield* handshakeTimestamp(client)
        // The machine's clock steps two hours forward: the venue is now an hour behind it.
        venue.skewMillis = -HOUR
        const timestamp = yield* handshakeTimestamp(client)
        assert.isAtMost(Math.abs(timestamp - (NOW - HOUR)), 1_000, `timestamp ${timestamp}`)
      }))
  })

  it.effect("waits at most 2 seconds for the venue's time: a REST side that does not answer holds no handshake up", () => {
    const venue = new FakeVenue({ skewMillis: HOUR })
    const http = HttpClient.make((request, url) =>
      url.pathname === SERVER_TIME ? Effect.never : venue.client.execute(request)
    )
    return Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const client = yield* SpotClient.SpotClient.pipe(
        Effect.provide(
          SpotClient.layer({ ...clientOptions, rateLimit: false, timeout: "1 hour" }).pipe(
            Layer.provide(Layer.succeed(HttpClient.HttpClient, http))
          )
        )
      )
      const handshake = yield* Effect.forkChild(handshakeTimestamp(client))
      yield* TestClock.adjust("2 seconds")
      const timestamp = yield* Fiber.join(handshake)
      // Signed on the estimate it had (none learnt): the venue's answer never came.
      assert.isAtMost(Math.abs(timestamp - (NOW + 2_000)), 1_000, `timestamp ${timestamp}`)
    })
  })
})
