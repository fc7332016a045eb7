/* eslint-disable @typescript-eslint/no-explicit-any -- a record of scripts run by hand */
// Issue #26, eighth pass (BENCHMARKS.md, eighth pass; figures in eighth-pass.txt): two scripts that ran by hand from
// packages/node (as zz-steps.ts and zz-ab.ts), kept here as one file with a mode, their canned transport shared.
// SpotClient over a canned transport that answers each placeOrder on setImmediate with the canned peers server's
// answer, the limiter on with budgets out of reach, timeoutBy "transport", node:crypto's signer.
//
//   steps [nolimit]  Effect run-loop steps per placeOrder: the fiber's run loop wrapped to add up its operation
//                    counts, 1,000 placeOrders counted after 1,000 (`node --conditions=@spotkit/source zz.ts steps`)
//   ab [rounds]      the step merges (step-merge-eighth-pass.diff, applied to the working tree: "new") against
//                    3049100 checked out in a git worktree at /work/scratch/wt-old ("old"), in one process, rounds of
//                    20,000 alternating in both orders, CPU µs per placeOrder, medians
//                    (`taskset -c 0 node --conditions=@spotkit/source zz.ts ab 15`)
import * as New from "@spotkit/core"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { HttpClient } from "effect/http"
import { credentials, orderBody } from "../../bench/src/peers/shared.ts"
import * as NodeSigner from "./src/NodeSigner.ts"

const [mode, arg] = process.argv.slice(2)
const far = { limit: 1e12, windowMillis: 10_000 }

const canned = (M: typeof New) =>
  HttpClient.makeWith((effect) =>
    Effect.flatMap(effect, (request: any) =>
      Effect.callback<any>((resume) => {
        setImmediate(() => {
          const body = Buffer.from(
            `{"code":"00000","msg":"success","requestTime":${Date.now()},"data":{"orderId":1001000000000000090,"clientOrderId":"bench-0"}}`
          )
          resume(Effect.succeed(
            new M.BufferedResponse.BufferedResponse({
              request,
              url: request.url,
              status: 200,
              headers: { "content-type": "application/json" },
              body
            })
          ))
        })
      })), Effect.succeed as any)

// placeOrder at one in flight, n at a time, through M's client.
const make = async (M: typeof New, limiter: boolean) => {
  const rt = ManagedRuntime.make(
    M.SpotClient.layer({
      baseUrl: "http://127.0.0.1:1",
      credentials: {
        apiKey: Redacted.make(credentials.apiKey),
        secretKey: Redacted.make(credentials.secretKey),
        passphrase: Redacted.make(credentials.passphrase)
      },
      rateLimit: limiter ? { uid: far, ip: far, perEndpoint: { limit: 1e12, windowMillis: 1_000 } } : false,
      timeoutBy: "transport"
    }).pipe(Layer.provide([
      Layer.succeed(HttpClient.HttpClient, canned(M) as any),
      Layer.succeed(M.Signer.Signer, NodeSigner.nodeCrypto as any)
    ]))
  )
  const client: any = await rt.runPromise(Effect.service(M.SpotClient.SpotClient as any))
  let id = 0
  const one = Effect.suspend(() => client.placeOrder(orderBody(`s${id++}`)))
  return (n: number) =>
    rt.runPromise(Effect.forEach(Array.from({ length: n }), () => one, { concurrency: 1, discard: true }))
}

if (mode === "steps") {
  const proto = Object.getPrototypeOf(Effect.runFork(Effect.void)) as { runLoop: (e: unknown) => unknown }
  const orig = proto.runLoop
  let steps = 0
  proto.runLoop = function(this: { currentOpCount: number }, e: unknown) {
    const r = orig.call(this, e)
    steps += this.currentOpCount
    return r
  }
  const place = await make(New, arg !== "nolimit")
  await place(1000)
  const before = steps
  await place(1000)
  console.log("steps/placeOrder", (steps - before) / 1000)
} else {
  const Old = await import("/work/scratch/wt-old/packages/core/src/index.ts" as string) as typeof New
  const runs = { old: await make(Old, true), new: await make(New, true) }
  const N = 20000, R = Number(arg ?? 15)
  for (const k of ["old", "new"] as const) await runs[k](N)
  const res: Record<string, Array<number>> = { old: [], new: [] }
  for (let r = 0; r < R; r++) {
    for (const k of (r % 2 ? ["old", "new"] : ["new", "old"]) as Array<"old" | "new">) {
      const c0 = process.cpuUsage()
      await runs[k](N)
      const c = process.cpuUsage(c0)
      res[k]!.push((c.user + c.system) / N)
    }
  }
  const med = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
  console.log(
    "old",
    med(res.old!).toFixed(2),
    "new",
    med(res.new!).toFixed(2),
    "diff(new-old) median",
    med(res.new!.map((x, i) => x - res.old![i]!)).toFixed(2)
  )
}
