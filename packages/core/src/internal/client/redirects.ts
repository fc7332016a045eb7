// Redirects are never followed. A redirect of a signed request would carry the API key, the passphrase, the signature
// and (307/308) the signed body to wherever the answer points, and the target's answer would be read as the venue's.
// Nothing the venue's interface does needs one, so every 3xx answer, public GETs included, becomes a
// `RedirectError` naming the status and the target's origin: a moved venue or a wrong base URL is then one readable
// failure. Fetch follows redirects by itself unless told otherwise (`redirect: "manual"`, set on every request here,
// over whatever `FetchHttpClient.RequestInit` is in context); a browser then answers an opaque redirect, status 0,
// hiding the status and the target. The other transports never follow.
import { Context, Effect } from "effect"
import { FetchHttpClient, HttpClient, HttpClientError, type HttpClientResponse } from "effect/http"
import { read } from "../../BufferedResponse.ts"
import type { Scrubber } from "../../SafeText.ts"
import * as SpotError from "../../SpotError.ts"
import * as Venue from "../../Venue.ts"

// At most this much of a redirect's body is read (and dropped) so that its connection can be reused; a longer one
// closes it.
const BODY_READ = 16 * 1024

const signHeader = Venue.headers.sign.toLowerCase()

/** Whether an answer's status is a redirect: a 3xx, or 0, fetch's opaque redirect in a browser. */
export const isRedirect = (status: number): boolean => (status >= 300 && status < 400) || status === 0

/** The reason for a redirect answer to a request sent to `url`. */
export const reasonOf = (
  status: number,
  location: string | undefined,
  url: string,
  scrub: (text: string) => string = (text) => text
): SpotError.RedirectError => {
  const target = location === undefined || location === "" ? undefined : URL.parse(location, url)
  return new SpotError.RedirectError({
    httpStatus: status,
    target: target === undefined ? undefined : target === null ? "an invalid Location" : scrub(target.origin)
  })
}

/** The platform's client that never follows a redirect, and the fetch options that tell fetch not to. */
export interface Refusing {
  readonly http: HttpClient.HttpClient
  /**
   * The `FetchHttpClient.RequestInit` a request is sent with when `current` is in context: `current` with
   * `redirect: "manual"` over it (over the init of the context the client was built in). A caller that provides it
   * above `http` (the pipeline, with its other per-call service, in one step) spares `http` providing it again.
   */
  readonly initFor: (current: RequestInit | undefined) => RequestInit
  /**
   * The failure `http` makes of a redirect answer of the platform's client (`isRedirect`), its body drained. A caller
   * that sends through the platform's client itself, with `initFor`'s init in context, and refuses redirects with
   * this gets exactly what `http` gives, in fewer steps.
   */
  readonly refused: (
    response: HttpClientResponse.HttpClientResponse
  ) => Effect.Effect<never, HttpClientError.HttpClientError>
}

/**
 * The platform's client, which never follows a redirect: fetch is told not to, and an answer with a redirect status
 * fails with an `HttpClientError` caused by a `RedirectError` (errors.ts reads it as the reason). The
 * `FetchHttpClient.RequestInit` of the context the client is built in is kept beneath the caller's.
 */
export const refuse = Effect.fnUntraced(function*(http: HttpClient.HttpClient, scrubber: Scrubber) {
  const init = Context.getOrUndefined(yield* Effect.context<never>(), FetchHttpClient.RequestInit)
  const manual: RequestInit = { ...init, redirect: "manual" }
  // The inits made here: one in context is already what this client would make of it.
  const made = new WeakSet<RequestInit>()
  const initFor = (current: RequestInit | undefined): RequestInit => {
    if (current === undefined || current === manual || made.has(current)) return current ?? manual
    const merged: RequestInit = { ...manual, ...current, redirect: "manual" }
    made.add(merged)
    return merged
  }
  const refused = (
    response: HttpClientResponse.HttpClientResponse
  ): Effect.Effect<never, HttpClientError.HttpClientError> => {
    const request = response.request
    const signature = request.headers[signHeader] ?? ""
    const cause = reasonOf(
      response.status,
      response.headers.location,
      request.url,
      (text) => scrubber.scrub(text, signature)
    )
    return Effect.ignore(read(response, BODY_READ)).pipe(
      Effect.andThen(Effect.fail(
        new HttpClientError.HttpClientError({
          reason: new HttpClientError.StatusCodeError({ request, response, cause, description: cause.message })
        })
      ))
    )
  }
  const refusing = HttpClient.makeWith(
    (effect) =>
      Effect.flatMap(effect, (request) =>
        Effect.withFiber((fiber) => {
          const current = Context.getOrUndefined(fiber.context, FetchHttpClient.RequestInit)
          const wanted = initFor(current)
          const sent = Effect.flatMap(
            http.execute(request),
            (response) => isRedirect(response.status) ? refused(response) : Effect.succeed(response)
          )
          return wanted === current ? sent : Effect.provideService(sent, FetchHttpClient.RequestInit, wanted)
        })),
    Effect.succeed as HttpClient.HttpClient.Preprocess<never, never>
  ) as HttpClient.HttpClient
  return { http: refusing, initFor, refused } satisfies Refusing
})
