// A minimal server for the client benchmark (bench/src/peers.ts), in its own process: node:http that reads each
// request's body, checks nothing (no signature, no JSON parsing; a placed order's clientOrderId is echoed, found by a
// pattern) and answers canned venue-shaped JSON, byte for
// byte the shape the sandbox answers (a 19-digit orderId as a JSON number; a full open-orders page of 10 with ids as
// strings), with the current requestTime. It costs the server as little as an HTTP answer can, so the client's own
// cost shows. Prints `READY <baseUrl>` when it listens; runs until killed.
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { OPEN_ORDERS_LIMIT, paths, SYMBOL } from "./shared.ts"

const order = (i: number) => {
  const id = `10010000000000000${80 + i}`
  return `{"accountId":"6001000000000000001","symbol":"${SYMBOL}","orderId":"${id}","clientOrderId":"resting-${i}",` +
    `"price":"${100 + i}.00","quantity":"0.060000","orderType":"limit","side":"buy","status":"open",` +
    `"latestFillPrice":"0","maxFillPrice":"0","minFillPrice":"0","fillQuantity":"0","fillTotalAmount":"0",` +
    `"cTime":"1795353817335","uTime":"1795353817335"}`
}
const page = `{"orderInfoResultList":[${
  Array.from({ length: OPEN_ORDERS_LIMIT }, (_, i) => order(OPEN_ORDERS_LIMIT - 1 - i)).join(",")
}],"nextPage":null,"totals":null}`
// The order's own clientOrderId, as the venue echoes it (the client refuses an answer about another order).
const CLIENT_ORDER_ID = /"clientOrderId":"([^"]*)"/
const placed = (body: string) =>
  `{"orderId":1001000000000000090,"clientOrderId":"${CLIENT_ORDER_ID.exec(body)?.[1] ?? "bench-0"}"}`

const envelope = (data: string) => `{"code":"00000","msg":"success","requestTime":${Date.now()},"data":${data}}`

const server = createServer((request, response) => {
  let received = ""
  request.setEncoding("utf8")
  request.on("data", (chunk: string) => {
    received += chunk
  })
  request.on("end", () => {
    const body = request.url === paths.placeOrder
      ? envelope(placed(received))
      : request.url === paths.openOrders
      ? envelope(page)
      : undefined
    if (body === undefined) {
      response.writeHead(404, { "content-type": "text/plain" })
      response.end("not found")
      return
    }
    response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
    response.end(body)
  })
})
server.keepAliveTimeout = 5_000
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`READY http://127.0.0.1:${(server.address() as AddressInfo).port}\n`)
})
