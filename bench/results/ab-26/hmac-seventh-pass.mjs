// issue #26, seventh pass: HMAC-SHA256 of a prehash four ways, warm and with 4 MiB of memory touched before each (run by hand: node hmac-seventh-pass.mjs, pinned with taskset -c 0); the output is in hmac-seventh-pass.txt
import { Buffer } from "node:buffer"
import console from "node:console"
import { createHmac, createSecretKey, hash } from "node:crypto"
import process from "node:process"
const secret = "sk-demo-secret-0123456789abcdef0123456789abcdef"
const key = createSecretKey(Buffer.from(secret))
const msg = "1764190000000POST/api/spot/v1/trade/orders" +
  JSON.stringify({
    symbol: "BTCUSDT_SPBL",
    side: "buy",
    orderType: "limit",
    force: "normal",
    price: "30000.5",
    quantity: "0.01",
    clientOrderId: "b1234-56789"
  })
const kb = Buffer.alloc(64)
Buffer.from(secret).copy(kb)
const inBuf = Buffer.allocUnsafe(64 + 4096), outBuf = Buffer.allocUnsafe(96)
for (let i = 0; i < 64; i++) {
  inBuf[i] = kb[i] ^ 0x36
  outBuf[i] = kb[i] ^ 0x5c
}
const viaBuffer = (m) => {
  const n = inBuf.write(m, 64, "utf8")
  outBuf.set(hash("sha256", inBuf.subarray(0, 64 + n), "buffer"), 64)
  return hash("sha256", outBuf, "base64")
}
const viaLatin1 = (m) => {
  const n = inBuf.write(m, 64, "utf8")
  outBuf.latin1Write(hash("sha256", inBuf.subarray(0, 64 + n), "latin1"), 64)
  return hash("sha256", outBuf, "base64")
}
const viaLatin1b = (m) => {
  const n = inBuf.write(m, 64, "utf8")
  outBuf.write(hash("sha256", inBuf.subarray(0, 64 + n), "latin1"), 64, "latin1")
  return hash("sha256", outBuf, "base64")
}
const node = (m) => createHmac("sha256", key).update(m, "utf8").digest("base64")
for (const f of [viaBuffer, viaLatin1, viaLatin1b]) {
  for (const m of [msg, "", "€𝄞x".repeat(50)]) if (f(m) !== node(m)) throw new Error("mismatch " + f.name)
}
const junk = new Float64Array(1 << 19)
for (const flush of [false, true]) {
  for (let r = 0; r < 3; r++) {
    for (
      const [name, f] of [["createHmac", node], ["buffer", viaBuffer], ["latin1", viaLatin1], ["latin1b", viaLatin1b]]
    ) {
      const N = flush ? 20000 : 200000
      let t = 0, sink = 0
      for (let i = 0; i < N; i++) {
        if (flush) { for (let j = 0; j < junk.length; j += 8) sink += junk[j]++ }
        const t0 = process.hrtime.bigint()
        f(msg + i)
        t += Number(process.hrtime.bigint() - t0)
      }
      console.log(flush ? "flush" : "warm ", name.padEnd(10), (t / N / 1000).toFixed(2), "us", sink === -1 ? "" : "")
    }
  }
}
