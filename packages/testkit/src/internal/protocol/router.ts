// The venue's HTTP protocol over the engine: a request and the time in, an outcome out; the transports (in-process
// HttpClient, loopback server) only carry bytes. Routes by `Venue.endpointByPath`; checks the method, the body's
// size, the caller's key and address against their failed authentications, the caller (auth, over the path, query and body
// bytes exactly as received; an exact replay of a placement or a transfer refused) against the endpoint's declared
// permission, and its declared weights; dispatches to the endpoint's handler with the request's fields (a GET's and a
// public endpoint's from the query string, a POST's from its JSON body) and writes the answer in its declared
// envelope. Faults strike first (or, for those that act after applying, last), and every request is logged with what
// it was answered.
import { Venue } from "@spotkit/core"
import { Buffer, isUtf8 } from "node:buffer"
import type * as Engine from "../../Engine.ts"
import { Auth, FAILED_CREDENTIALS } from "./auth.ts"
import { afterApplying, Faults, preempt } from "./faults.ts"
import { parseBody, parseQuery } from "./fields.ts"
import { handlers } from "./handlers.ts"
import { Limits, type RateLimits } from "./limits.ts"
import { RequestLog } from "./requestLog.ts"
import { envelope, type Outcome, Refusal, refusal, respond, success, type WireRequest } from "./wire.ts"

export interface RouterOptions {
  readonly rateLimits: RateLimits | false
  /** How far a request timestamp may be from server time (ms). */
  readonly windowMillis: number
  readonly maxBodyBytes: number
  /** How many request records to keep (oldest dropped first), and in how many bytes at most. */
  readonly requestLogSize: number
  readonly requestLogBytes: number
  readonly seed: number
}

export class Router {
  readonly engine: Engine.Engine
  readonly maxBodyBytes: number
  readonly auth: Auth
  readonly faults: Faults
  readonly limits: Limits
  readonly log: RequestLog

  constructor(engine: Engine.Engine, options: RouterOptions) {
    this.engine = engine
    this.maxBodyBytes = options.maxBodyBytes
    this.auth = new Auth(options.windowMillis)
    this.faults = new Faults(options.seed)
    this.limits = new Limits(options.rateLimits)
    this.log = new RequestLog(options.requestLogSize, options.requestLogBytes)
  }

  handle(request: WireRequest, now: number): Outcome {
    const queryAt = request.path.indexOf("?")
    const path = queryAt < 0 ? request.path : request.path.slice(0, queryAt)
    const endpoint = Venue.endpointByPath.get(path)
    // A rule with a path strikes that path, public or signed; one without strikes signed requests only.
    const strike = this.faults.strike(path, endpoint?.permission !== undefined)
    const fault = strike?.fault
    // Whether the fault acted on this request (one that acts after applying does not act on a refused request).
    let acted = fault !== undefined && !afterApplying(fault)
    // The user is known once the request authenticates; records made before say undefined.
    let userId: string | undefined
    const finish = (outcome: Outcome, code: string | undefined): Outcome => {
      this.log.add({
        time: now,
        method: request.method,
        path: request.path,
        body: request.body,
        userId,
        status: outcome._tag === "Respond" ? outcome.status : undefined,
        code,
        fault: acted ? fault?._tag : undefined
      })
      return outcome
    }
    // A latency fault delays whatever the venue answers, refusals included.
    const delay = fault?._tag === "Latency" ? fault.millis : 0
    const refuse = (refused: Refusal): Outcome =>
      finish(
        respond(refused.status, envelope(refused.code, refused.msg, now, "null"), delay, undefined, refused.headers),
        refused.code
      )
    const tooMany = () => new Refusal("429", Venue.message("429"), 429, this.limits.refusalHeaders)

    const preempted = fault === undefined ? undefined : preempt(fault)
    if (preempted instanceof Refusal) return refuse(preempted)
    if (preempted !== undefined) return finish(preempted, undefined)

    // A declared endpoint the exchange does not serve (yet) is answered as an unknown path.
    const handler = endpoint === undefined ? undefined : handlers[endpoint.name as Venue.EndpointName]
    if (endpoint === undefined || handler === undefined) return refuse(refusal("40404"))
    const permission = endpoint.permission
    // A public endpoint answers POST as well as its own method, and is answered before any check of the caller.
    if (request.method !== endpoint.method && !(permission === undefined && request.method === "POST")) {
      return refuse(refusal("40405"))
    }
    let data: string | Refusal
    if (permission === undefined) {
      if (this.limits.refuses(endpoint.name, undefined, request.clientAddress, now)) return refuse(tooMany())
      const query = parseQuery(request.path)
      data = query instanceof Refusal ? query : handler(this.engine, "", query, now)
    } else {
      if (this.tooLarge(request)) return refuse(new Refusal("40017", "Request body too large", 413))
      // A key that failed too many times from an address is refused there before any check: guessing learns
      // nothing more. Other keys from the address are not.
      const key = this.limits.countsAuthFailures ? this.auth.knownKey(request) : ""
      if (this.limits.authBlocked(key, request.clientAddress, now)) return refuse(tooMany())
      // An exact replay is refused only where it would place or move again (placements, transfers); a repeated
      // cancel moves nothing, and two clients of one key signing the same cancel in one millisecond must both pass.
      const once = endpoint.idempotency === "none" || endpoint.idempotency === "clientOrderId"
      const caller = this.auth.authenticate(request, permission, now, once)
      if (caller instanceof Refusal) {
        if (FAILED_CREDENTIALS.has(caller.code)) this.limits.authFailed(key, request.clientAddress, now)
        return refuse(caller)
      }
      userId = caller.userId
      // The signature held over the bytes; as JSON they must be UTF-8 too (their text read them as U+FFFD).
      if (request.bodyBytes !== undefined && !isUtf8(request.bodyBytes)) {
        return refuse(new Refusal("40017", "Request body is not UTF-8"))
      }
      if (this.limits.refuses(endpoint.name, caller, request.clientAddress, now)) return refuse(tooMany())
      this.auth.admitted(caller)
      const body = endpoint.method === "GET" ? parseQuery(request.path) : parseBody(request.body)
      if (body instanceof Refusal) return refuse(body)
      data = handler(this.engine, caller.userId, body, now)
    }
    if (data instanceof Refusal) return refuse(data)

    const code = endpoint.envelope === "transfer" ? Venue.TRANSFER_SUCCESS : Venue.SUCCESS
    const answer = success(endpoint.envelope, data, now)
    if (strike !== undefined && afterApplying(strike.fault)) {
      // The request is applied, then its answer is lost or cut in the middle.
      this.faults.spend(strike.entry)
      acted = true
      if (strike.fault._tag === "AppliedLost") return finish({ _tag: "Drop", delayMillis: 0 }, code)
      return finish(respond(200, answer.slice(0, Math.max(1, Math.floor(answer.length / 2)))), code)
    }
    return finish(respond(200, answer, delay), code)
  }

  // The limit is in UTF-8 bytes, as a socket counts them; a body of n code units has at most 3n bytes.
  private tooLarge(request: WireRequest): boolean {
    const max = this.maxBodyBytes
    return request.bodyTooLarge === true || request.body.length > max ||
      (request.body.length * 3 > max && Buffer.byteLength(request.body, "utf8") > max)
  }
}
