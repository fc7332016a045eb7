/**
 * What the push path quotes from the venue (`internal/push/venueText.ts`): scrubbed of the credentials, of the
 * handshake signatures sent lately (the last eight) and of the push URL's user information and query, and made one
 * printable line (a text cut short keeps no start of one either); a URL named without them; why a connection ended
 * described, a defect included.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause } from "effect"
import * as Socket from "effect/socket/Socket"
import { describe as describeEnd } from "../src/internal/push/connection.ts"
import { urlName, VenueText } from "../src/internal/push/venueText.ts"

describe("push: venue texts", () => {
  it("scrubs credentials, the recent signatures and the URL's secrets; a line is printable", () => {
    const text = new VenueText({
      secrets: ["the-api-key", "the-passphrase", "the-secret"],
      url: "wss://someone:url-password@venue.test/?token=url-token&x=1"
    })
    const signatures = Array.from({ length: 9 }, (_, i) => `c2lnbmF0dXJlLW51bWJlci0${i}AAAAAAA=`)
    for (const signature of signatures) text.signed(signature)
    const said = `key the-api-key pass ${encodeURIComponent("the-passphrase")} ${signatures.join(" ")} ` +
      `url-password url-token \u001b[2J`
    const scrubbed = text.scrub(said)
    for (const secret of ["the-api-key", "the-passphrase", "url-password", "url-token", ...signatures.slice(1)]) {
      assert.notInclude(scrubbed, secret)
    }
    // Only the last eight signatures are kept: the oldest is too old to matter.
    assert.include(scrubbed, signatures[0]!)
    assert.include(scrubbed, "\u001b[2J", "scrub keeps the text whole")
    const line = text.line(said)
    assert.notInclude(line, "\u001b")
    assert.include(line, "\\u001b[2J")
    assert.strictEqual(text.line("x".repeat(300), 10), "xxxxxxxxxx… (300 characters)")
  })

  it("a close reason the venue cut at 123 bytes inside a credential or a signature keeps no start of it", () => {
    const text = new VenueText({
      secrets: ["the-api-key", "Correct-Horse-Battery-Staple-42", "the-secret"],
      url: "wss://venue.test/ws"
    })
    const signature = "c2lnbmF0dXJlLW51bWJlci0xAAAAAAA="
    text.signed(signature)
    const reason = "rejected handshake from 127.0.0.1 with ACCESS-KEY the-api-key and ACCESS-PASSPHRASE " +
      `Correct-Horse-Battery-Staple-42 (ACCESS-SIGN ${signature})`
    for (let bytes = 97; bytes <= reason.length; bytes++) {
      const scrubbed = text.scrub(reason.slice(0, bytes))
      assert.notInclude(scrubbed, "Correct", `${bytes}: ${scrubbed}`)
      assert.notInclude(scrubbed, signature.slice(0, 6), `${bytes}: ${scrubbed}`)
    }
  })

  it("urlName: no user information, query or fragment", () => {
    assert.strictEqual(urlName("wss://user:pw@host:443/path?token=x#frag"), "wss://host:443/path")
    assert.strictEqual(urlName("user:pw@host/x"), "host/x")
    assert.strictEqual(urlName("wss://host/a@b"), "wss://host/a@b")
    assert.strictEqual(urlName("ws://host"), "ws://host")
    // Not well-formed: the user information still goes.
    assert.strictEqual(urlName("wss:/u:secretpw@h"), "wss:/h")
    assert.strictEqual(urlName("wss:///u:secretpw@h/p"), "wss:///h/p")
    assert.strictEqual(urlName(" wss://u:p@h"), " wss://h")
    assert.strictEqual(urlName("u:a@b:pw@h"), "h")
  })

  it("describe: a close reason, a socket error's own message, a defect, a reason of the client", () => {
    const closed = new Socket.SocketError({ reason: new Socket.SocketCloseError({ code: 4000, closeReason: "bye" }) })
    assert.strictEqual(describeEnd(Cause.fail(closed)), "SocketCloseError: 4000: bye")
    const read = new Socket.SocketError({
      reason: new Socket.SocketReadError({ cause: { type: "error", message: "Max payload size exceeded" } })
    })
    assert.strictEqual(
      describeEnd(Cause.fail(read)),
      "SocketReadError: An error occurred during Read (Max payload size exceeded)"
    )
    assert.strictEqual(describeEnd(Cause.fail("no frame for 1m")), "no frame for 1m")
    assert.strictEqual(
      describeEnd(Cause.die(new RangeError("Maximum call stack size exceeded"))),
      "a defect: RangeError: Maximum call stack size exceeded"
    )
    assert.strictEqual(describeEnd(Cause.die(Object.create(null))), "a defect: a value of type object")
  })
})
