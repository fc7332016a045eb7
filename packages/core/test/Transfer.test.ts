/**
 * The transfer's success answer as the venue may send it: its own envelope (`{ code: "200", id, timestamp }`), with
 * or without a timestamp, or a standard `00000` envelope carrying the id as a string or a number.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type SpotClient } from "../src/index.ts"
import { envelope, NOW, sampleTransfer, ScriptedVenue, TRANSFER, withClient } from "./support/FakeVenue.ts"

describe("transfer success answers", () => {
  const transfer = (client: SpotClient.Service) => client.internalTransfer(sampleTransfer)

  it.effect.each([
    { name: "a standard 00000 envelope", body: envelope("00000", "success", NOW, `{"id":"123"}`) },
    { name: "a standard envelope with a numeric id", body: envelope("00000", "success", NOW, `{"id":123}`) },
    { name: "the transfer envelope without timestamp", body: `{"code":"200","id":"123"}` }
  ])("$name gives the id and no timestamp", ({ body }) => {
    const venue = new ScriptedVenue().answerNext(TRANSFER, () => ({ status: 200, body }))
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* transfer(client)
        assert.strictEqual(result.id, "123")
        assert.isUndefined(result.timestamp)
        assert.strictEqual(venue.count(TRANSFER), 1)
      }))
  })
})
