/* eslint-disable @typescript-eslint/no-explicit-any -- a record of a script run by hand, kept as it ran */
// Issue #26, eighth pass: what the ladder's lower rungs cost in process (BENCHMARKS.md, eighth pass). Ran by hand from
// packages/node as zz-tr.ts: a fake undici dispatcher that answers each request on setImmediate with the canned
// placeOrder answer, under the floor (a plain handler and a Promise), an Effect.callback around the same handler, and
// the undici transport (UndiciClient.make over the fake dispatcher, a request built as the pipeline builds it).
// `taskset -c 0 node --conditions=@spotkit/source zz-tr.ts`
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { Headers, HttpBody, HttpClient, HttpClientRequest, UrlParams } from "effect/http"
import * as UndiciClient from "./src/internal/undiciClient.ts"
const answer = () =>
  Buffer.from(
    `{"code":"00000","msg":"success","requestTime":${Date.now()},"data":{"orderId":1001000000000000090,"clientOrderId":"bench-0"}}`
  )
const hdrs = { "content-type": "application/json", "content-length": "120", connection: "keep-alive" }
const ctrl = { abort() {}, pause() {}, resume() {}, paused: false, aborted: false, reason: null }
const fake: any = {
  dispatch(_o: any, h: any) {
    setImmediate(() => {
      h.onRequestStart?.(ctrl, {})
      h.onResponseStart(ctrl, 200, hdrs, "OK")
      h.onResponseData(ctrl, answer())
      h.onResponseEnd(ctrl, {})
    })
    return true
  }
}
const HP = Object.getPrototypeOf(Headers.empty)
const url = "http://127.0.0.1:1/api/v2/spot/trade/place-order"
const body = JSON.stringify({
  symbol: "BTCUSDT",
  side: "buy",
  orderType: "limit",
  force: "gtc",
  price: "100",
  size: "0.5",
  clientOid: "x"
})
const mkReq = () => {
  const h = Object.create(HP)
  h["locale"] = "en-US"
  h["content-type"] = "application/json"
  h["access-key"] = "k"
  h["access-passphrase"] = "p"
  h["content-length"] = "99"
  h["access-sign"] = "s".repeat(44)
  h["access-timestamp"] = String(Date.now())
  return HttpClientRequest.makeWith(
    "POST",
    url,
    UrlParams.empty,
    Option.none(),
    h,
    HttpBody.text(body, "application/json")
  )
}
const floorOne = () =>
  new Promise<unknown>((resolve) => {
    const chunks: Buffer[] = []
    fake.dispatch({ origin: "http://127.0.0.1:1", path: "/x", method: "POST", headers: { a: "1" }, body }, {
      onRequestStart() {},
      onResponseStart() {},
      onResponseData(_c: unknown, b: Buffer) {
        chunks.push(b)
      },
      onResponseEnd() {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")))
      }
    })
  })
const rt = ManagedRuntime.make(
  Layer.effect(HttpClient.HttpClient, UndiciClient.make({ timeoutMillis: 10000, maxBodyBytes: 64 << 20 })).pipe(
    Layer.provide(Layer.succeed(NodeHttpClient.Dispatcher, fake))
  )
)
const http = await rt.runPromise(Effect.service(HttpClient.HttpClient))
const effOne = Effect.callback<unknown>((resume) => {
  const chunks: Buffer[] = []
  fake.dispatch({}, {
    onRequestStart() {},
    onResponseStart() {},
    onResponseData(_c: unknown, b: Buffer) {
      chunks.push(b)
    },
    onResponseEnd() {
      resume(Effect.succeed(JSON.parse(Buffer.concat(chunks).toString("utf8"))))
    }
  })
})
const trOne = Effect.suspend(() =>
  Effect.flatMap(http.execute(mkReq()), (r: any) => Effect.sync(() => JSON.parse(r.bodyText)))
)
const runs: Record<string, (n: number) => Promise<unknown>> = {
  floor: async (n) => {
    for (let i = 0; i < n; i++) await floorOne()
  },
  effect: (n) =>
    rt.runPromise(Effect.forEach(Array.from({ length: n }), () => effOne, { concurrency: 1, discard: true })),
  transport: (n) =>
    rt.runPromise(Effect.forEach(Array.from({ length: n }), () => trOne, { concurrency: 1, discard: true }))
}
const N = 20000, R = 11
for (const k in runs) await runs[k]!(N)
const res: Record<string, number[]> = {}
for (let r = 0; r < R; r++) {
  for (const k in runs) {
    const c0 = process.cpuUsage()
    await runs[k]!(N)
    const c = process.cpuUsage(c0)
    ;(res[k] ??= []).push((c.user + c.system) / N)
  }
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
for (const k in res) console.log(k, med(res[k]!).toFixed(2))
