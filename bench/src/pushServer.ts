// The push bench's server (bench/src/push.ts starts it in its own process, so that its work is not the client's):
// records the frames the testkit's push venue sends for one depth channel — its acknowledgement, its snapshot, then
// `--frames` change frames made by random level changes (seeded) — and replays exactly those frames, as fast as the
// socket takes them, to every WebSocket client that subscribes to the channel. Prints `PORT <n> <last version>`.
import { PushVenue } from "@spotkit/testkit"
import { Effect } from "effect"
import { WebSocketServer } from "ws"
import { option } from "./cli.ts"

export const SYMBOL = "BTCUSDT_SPBL"
export const CHANNEL = `depth.${SYMBOL}.15`

const FRAMES = option("frames", 100_000)
const SEED = option("seed", 24)

// mulberry32, as the testkit's own generator.
const random = (seed: number): () => number => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6D2B79F5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

const record = (count: number, seed: number): Promise<Array<string>> =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const next = random(seed)
    const levels = (mid: number, sign: number) =>
      Array.from({ length: 40 }, (_, i): readonly [string, string] => [`${mid + sign * 5 * i}.00`, "0.500"])
    const venue = yield* PushVenue.make({
      source: { depth: () => ({ bids: levels(29_995, -1), asks: levels(30_005, 1) }) }
    })
    const frames: Array<string> = []
    const socket = venue.webSocket("ws://bench.test/v2/ws/public")
    socket.addEventListener("message", (event) => {
      // The venue's pings (every 20 s) are not part of the channel.
      if (!String(event.data).includes(`"ping"`)) frames.push(String(event.data))
    })
    yield* Effect.promise(() => new Promise<void>((resolve) => socket.addEventListener("open", () => resolve())))
    socket.send(JSON.stringify({ event: "subscribe", channel: CHANNEL }))
    yield* Effect.promise(turn)
    // Changes near the best levels (the top 15 shows most of them), a quarter of them removing a level.
    while (frames.length < count + 2) {
      for (let i = 0; i < 500; i++) {
        const bid = next() < 0.5
        const price = (bid ? 29_995 : 30_005) + (bid ? -1 : 1) * 5 * Math.floor(next() * 20)
        const size = next() < 0.25 ? "0" : `0.${String(1 + Math.floor(next() * 999)).padStart(3, "0")}`
        const level: readonly [string, string] = [`${price}.00`, size]
        yield* venue.publish({ _tag: "Book", symbol: SYMBOL, bids: bid ? [level] : [], asks: bid ? [] : [level] })
      }
      yield* Effect.promise(turn)
    }
    return frames.slice(0, count + 2)
  })))

const frames = await record(FRAMES, SEED)
const last = JSON.parse(frames.at(-1)!).data[0].endVersion as string
const server = new WebSocketServer({ host: "127.0.0.1", port: 0 })
server.on("connection", (socket) => {
  socket.on("message", (data) => {
    const message = JSON.parse(String(data)) as { event?: string; channel?: string }
    if (message.event === "subscribe" && message.channel === CHANNEL) {
      for (const frame of frames) socket.send(frame)
    } else if (message.event === "unsubscribe") {
      socket.send(JSON.stringify({ event: "unsubscribed", channel: message.channel }))
    }
  })
})
// The bench holds this process's stdin: when it ends (the bench is done, or died), so does the server.
process.stdin.resume()
process.stdin.on("end", () => process.exit(0))
server.on("listening", () => {
  const address = server.address()
  process.stdout.write(`PORT ${typeof address === "object" && address !== null ? address.port : 0} ${last}\n`)
})
