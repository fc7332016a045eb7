/**
 * `SpotClient.Options.transformClient`: applied beneath the pipeline, it sees every HTTP exchange as sent (each
 * attempt of a retried call, signed), with `Headers.CurrentRedactedNames` naming the credential headers, and what it
 * adds to a request reaches the venue without breaking the signature.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Headers, HttpClient, HttpClientRequest } from "effect/http"
import { Venue } from "../src/index.ts"
import { BILLS, FakeVenue, httpAnswer, requestsTo, withClient } from "./support/FakeVenue.ts"

describe("transformClient", () => {
  it.effect("sees each attempt of a retried call, signed, with the credential headers among the redacted names", () =>
    Effect.gen(function*() {
      const venue = new FakeVenue()
      venue.fail(httpAnswer("<html>bad gateway</html>", 502), BILLS)
      const seen: Array<{ readonly path: string; readonly sign: string | undefined; readonly redacted: string }> = []
      const transformClient = (client: HttpClient.HttpClient) =>
        client.pipe(
          HttpClient.tapRequest((request) =>
            Effect.gen(function*() {
              const names = yield* Headers.CurrentRedactedNames
              seen.push({
                path: new URL(request.url).pathname,
                sign: request.headers["access-sign"],
                redacted: JSON.stringify(Headers.redact(request.headers, names))
              })
            })
          ),
          HttpClient.mapRequest(HttpClientRequest.setHeader("x-trace", "hooked"))
        )
      const page = yield* withClient(venue, (client) => client.fundingBillsPage({ pageSize: 10 }), {
        transformClient,
        syncServerTime: false
      })
      assert.isArray(page.items)
      const attempts = seen.filter((request) => request.path === Venue.endpoints.fundingBills.path)
      assert.strictEqual(attempts.length, 2)
      for (const attempt of attempts) {
        assert.isDefined(attempt.sign)
        assert.notInclude(attempt.redacted, attempt.sign!)
        for (const name of Venue.credentialHeaders) assert.include(attempt.redacted, `"${name}":"<redacted>"`)
      }
      // The venue checked the signature of the request the hook changed, and saw the added header.
      assert.strictEqual(requestsTo(venue, BILLS).at(-1)?.headers["x-trace"], "hooked")
    }))
})
