// The raw baseline of the export benchmark: the same signed bills requests and keyset paging as the spotkit CLI,
// written with nothing but Node (node:http with a keep-alive agent, node:crypto, JSON.parse, string concatenation,
// a file stream) and none of the client's checks (no schema validation, no lossless JSON, no retries, no rate
// limiter). One request at a time, like the CLI. A separate process, started like the CLI:
//
//   SPOTKIT_BASE_URL=... SPOTKIT_API_KEY=... SPOTKIT_SECRET_KEY=... SPOTKIT_PASSPHRASE=... \
//     node baseline.ts --out FILE
//
// Prints one JSON line: { rows, pages }.
import { createHmac } from "node:crypto"
import { createWriteStream } from "node:fs"
import { Agent, request } from "node:http"

interface Bill {
  readonly billId: string
  readonly coinId: number
  readonly coinName: string
  readonly bizType: string
  readonly deltaAmount: string
  readonly afterAmount: string
  readonly fees: string
  readonly cTime: string
}

const env = (name: string): string => {
  const value = process.env[name]
  if (value === undefined) throw new Error(`${name} is not set`)
  return value
}
const at = process.argv.indexOf("--out")
if (at < 0) throw new Error("--out FILE")
const out = createWriteStream(process.argv[at + 1]!)
const base = new URL(env("SPOTKIT_BASE_URL"))
const apiKey = env("SPOTKIT_API_KEY")
const secret = env("SPOTKIT_SECRET_KEY")
const passphrase = env("SPOTKIT_PASSPHRASE")
const path = "/api/v2/account/fundingBills"
const agent = new Agent({ keepAlive: true, maxSockets: 1 })

const post = (body: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const timestamp = String(Date.now())
    const sign = createHmac("sha256", secret).update(timestamp + "POST" + path + body).digest("base64")
    const req = request({
      host: base.hostname,
      port: base.port,
      path,
      method: "POST",
      agent,
      headers: {
        "ACCESS-KEY": apiKey,
        "ACCESS-SIGN": sign,
        "ACCESS-TIMESTAMP": timestamp,
        "ACCESS-PASSPHRASE": passphrase,
        locale: "en-US",
        "Content-Type": "application/json",
        "Content-Length": Buffer.byteLength(body)
      }
    }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () =>
        res.statusCode === 200
          ? resolve(Buffer.concat(chunks).toString("utf8"))
          : reject(new Error(`HTTP ${res.statusCode}`)))
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end(body)
  })

const write = (text: string): Promise<void> =>
  out.write(text) ? Promise.resolve() : new Promise((resolve) => out.once("drain", resolve))

// RFC 4180: a field is quoted only when it holds a comma, a quote or a line break.
const cell = (s: string) => /[",\r\n]/.test(s) ? `"${s.replaceAll("\"", "\"\"")}"` : s

let rows = 0
let pages = 0
let endTime: number | undefined
let boundary = -1
let boundaryIds = new Set<string>()
await write("billId,coinId,coinName,bizType,deltaAmount,afterAmount,fees,cTime\n")
for (;;) {
  const envelope = JSON.parse(await post(JSON.stringify({ endTime, pageIndex: 1, pageSize: 100 })))
  if (envelope.code !== "00000") throw new Error(`venue code ${envelope.code}`)
  const items: ReadonlyArray<Bill> = envelope.data.items
  pages++
  let text = ""
  for (const b of items) {
    const time = Number(b.cTime)
    if (time === boundary && boundaryIds.has(b.billId)) continue
    text += `${cell(b.billId)},${b.coinId},${cell(b.coinName)},${
      cell(b.bizType)
    },${b.deltaAmount},${b.afterAmount},${b.fees},${time}\n`
    rows++
  }
  await write(text)
  if (!envelope.data.hasNextPage || items.length === 0) break
  const oldest = Number(items[items.length - 1]!.cTime)
  const ids = new Set(oldest === boundary ? boundaryIds : [])
  for (const b of items) if (Number(b.cTime) === oldest) ids.add(b.billId)
  boundary = oldest
  boundaryIds = ids
  endTime = oldest + 1
}
await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())))
agent.destroy()
console.log(JSON.stringify({ rows, pages }))
