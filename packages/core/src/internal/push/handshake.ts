// The push handshake: the socket of each dial, with the headers it sends (a private one signed afresh), and the check
// that the credentials can be sent as headers at all.
import { Clock, Deferred, Duration, Effect, Exit, Option, Redacted } from "effect"
import * as Socket from "effect/socket/Socket"
import * as Push from "../../Push.ts"
import * as PushError from "../../PushError.ts"
import * as Signer from "../../Signer.ts"
import { SpotClient } from "../../SpotClient.ts"
import * as SpotError from "../../SpotError.ts"
import * as Venue from "../../Venue.ts"
import { HEADER_REFUSAL_CODES } from "../client/errors.ts"
import { emptySecretRefusal } from "../client/refusals.ts"
import { HeadersUnsupported } from "./connection.ts"
import type { VenueText } from "./venueText.ts"

// Why a credential cannot be sent as a handshake header (`Venue.headerValueProblem`), as the REST client refuses it.
// An empty secret key, or one of whitespace only, is refused as the REST client refuses it (`emptySecretRefusal`).
export const credentialsRefusal = (credentials: Signer.Credentials): SpotError.ValidationError | undefined => {
  for (const [field, secret] of [["apiKey", credentials.apiKey], ["passphrase", credentials.passphrase]] as const) {
    const problem = Venue.headerValueProblem(Redacted.value(secret))
    if (problem !== undefined) {
      return new SpotError.ValidationError({ field: `credentials.${field}`, description: problem })
    }
  }
  return emptySecretRefusal(credentials)
}

const openError = (cause: unknown) =>
  new Socket.SocketError({ reason: new Socket.SocketOpenError({ kind: "Unknown", cause }) })

// The sockets of one endpoint: each dial makes its handshake headers afresh (a private one signs its timestamp then).
export const makeSocket = (
  construct: Socket.WebSocketConstructor["Service"],
  url: string,
  endpoint: Push.Endpoint,
  headers: Effect.Effect<Record<string, string>>,
  options: { readonly openTimeoutMillis: number; readonly highWaterMark: number | undefined }
): Effect.Effect<Socket.Socket> => {
  const dial = Effect.flatMap(
    headers,
    (handshake) =>
      Effect.try({ try: () => construct(url, { headers: handshake }), catch: (cause) => cause }).pipe(
        Effect.catch((cause) =>
          // A constructor that takes no options object (a browser's): public channels go without headers; private
          // ones cannot authenticate. Node's refusal of a header (a TypeError with a code) is no such thing.
          !(cause instanceof TypeError) || HEADER_REFUSAL_CODES.has((cause as { readonly code?: unknown }).code)
            ? Effect.fail(openError(cause))
            : endpoint === "private"
            ? Effect.fail(openError(new HeadersUnsupported()))
            : Effect.try({ try: () => construct(url), catch: openError })
        )
      )
  )
  return Socket.fromWebSocket(
    Effect.acquireRelease(dial, (ws) => Effect.sync(() => ws.close(1000))),
    { openTimeout: Duration.millis(options.openTimeoutMillis), highWaterMark: options.highWaterMark }
  )
}

// The venue's time asked, best effort: the client's clock offset learns it (a failure is logged and leaves it as it is).
// At most `SERVER_TIME_WAIT` is spent on it, so that a REST side paused after a 429 or slow to answer does not hold a
// handshake up (the request is then given up, and the offset stays as it was). Answers whether the venue answered.
const SERVER_TIME_WAIT = "2 seconds"

export const askServerTime = (client: SpotClient["Service"]): Effect.Effect<boolean> =>
  Effect.catch(
    Effect.map(Effect.timeoutOption(client.serverTime(), SERVER_TIME_WAIT), Option.isSome),
    (error) =>
      Effect.as(Effect.logDebug(`spotkit: server time unavailable for the push session (${error.message})`), false)
  )

// `askServerTime` until the venue has answered once, then nothing more (true): a start read on the venue's clock needs
// the offset learnt once, and an ask that failed must not stand for every later stream of the service. One ask at a
// time: the streams that start while it is under way wait for its answer (at most `SERVER_TIME_WAIT`) rather than
// each send their own, and a later failure does not undo an answer.
export const serverTimeOnce = (client: SpotClient["Service"]): Effect.Effect<boolean> => {
  let answered = false
  let pending: Deferred.Deferred<boolean> | undefined = undefined
  return Effect.suspend(() => {
    if (answered) return Effect.succeed(true)
    if (pending !== undefined) return Deferred.await(pending)
    const ask = Deferred.makeUnsafe<boolean>()
    pending = ask
    return Effect.onExit(askServerTime(client), (exit) =>
      Effect.sync(() => {
        // An ask interrupted (its stream left) answers its waiters no: they go on as after a failed ask.
        const ok = Exit.isSuccess(exit) && exit.value
        answered ||= ok
        pending = undefined
        Deferred.doneUnsafe(ask, Effect.succeed(ok))
      }))
  })
}

// The private handshake: the key, the passphrase, a timestamp of the venue's clock and the signature over
// `timestamp + "/v2/ws/private"`, which is scrubbed from what the venue says from then on. The venue's time is asked
// before each handshake (best effort): a refused handshake answers no time to learn from, and a program that only
// reads pushes makes no signed REST request until a connection is up (the backfill), so an estimate off by more than
// the timestamp window (never asked, or the machine's clock stepped since) would be refused on every reconnect.
export const privateHeaders = (credentials: Signer.Credentials, userAgent: string, text: VenueText) =>
  Effect.gen(function*() {
    const client = yield* SpotClient
    // A refused secret key (empty: WebCrypto refuses it; or whitespace only) is not prepared: the private streams
    // refuse it before any handshake.
    const sign = emptySecretRefusal(credentials) === undefined
      ? yield* (yield* Signer.Signer).prepare(credentials.secretKey)
      : () => Effect.succeed("")
    const apiKey = Redacted.value(credentials.apiKey)
    const passphrase = Redacted.value(credentials.passphrase)
    return Effect.gen(function*() {
      yield* askServerTime(client)
      const offset = yield* client.clockOffset
      const timestamp = String(Math.round((yield* Clock.currentTimeMillis) + offset))
      const signature = yield* sign(Push.prehash(timestamp))
      text.signed(signature)
      return {
        [Push.headers.key]: apiKey,
        [Push.headers.passphrase]: passphrase,
        [Push.headers.timestamp]: timestamp,
        [Push.headers.sign]: signature,
        [Push.headers.userAgent]: userAgent
      }
    })
  })

// Whether the venue refuses the credentials, asked after a private handshake that did not open: one signed REST call
// (the balances, which the private session reads anyway). A refusal of the credentials (`AuthenticationError`,
// `PermissionError`) is the reason to fail the private streams with; anything else (an answer, a transient failure, a
// refusal for another reason) says nothing of the key, and the connection is dialled again. At most
// `CREDENTIALS_CHECK_WAIT` is spent on it (a REST side that hangs, retried, would hold the reconnection up for a minute).
const CREDENTIALS_CHECK_WAIT = "15 seconds"

export const credentialsRefused = (
  client: SpotClient["Service"]
): Effect.Effect<PushError.CredentialsRefusedError | undefined> =>
  Effect.map(
    Effect.timeoutOption(
      Effect.match(client.balances(), {
        onFailure: (error) =>
          error.reason._tag === "AuthenticationError" || error.reason._tag === "PermissionError"
            ? new PushError.CredentialsRefusedError({ error })
            : undefined,
        onSuccess: () => undefined
      }),
      CREDENTIALS_CHECK_WAIT
    ),
    Option.getOrUndefined
  )
