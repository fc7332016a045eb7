// Instructions per CSV row: the writer before (main's `billsCsv`, copied here: plain rows joined by hand) and the one
// CSV writer after (`Records.csv(Records.bill, page, Formats.CSV_FILE)`: formula cells neutralised, RFC 4180 quoting),
// 100 pages of 100 plain bills per round. Per row: (I(12 rounds) - I(2 rounds)) / 100,000.
//   cd bench/results/cli-21 && valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
//     node --single-threaded --conditions=@spotkit/source csv-writer.ts old|new 2|12
import type { Bill } from "@spotkit/core"
import * as Formats from "../../../packages/node/src/internal/formats.ts"
import * as Records from "../../../packages/node/src/internal/records.ts"
const SPECIAL = /[",\r\n]/
const old = (bills: ReadonlyArray<Bill.Bill>): string => {
  let text = ""
  for (let i = 0; i < bills.length; i++) {
    const b = bills[i]!
    if (
      SPECIAL.test(b.billId) || SPECIAL.test(b.coinName) || SPECIAL.test(b.bizType) || SPECIAL.test(b.deltaAmount) ||
      SPECIAL.test(b.afterAmount) || SPECIAL.test(b.fees)
    ) throw new Error("x")
    text += b.billId + "," + b.coinId + "," + b.coinName + "," + b.bizType + "," + b.deltaAmount + "," +
      b.afterAmount + "," + b.fees + "," + b.cTime + "\n"
  }
  return text
}
const pages = Array.from({ length: 100 }, (_, p) =>
  Array.from({ length: 100 }, (_, i) => ({
    billId: String(2001000000000000000n + BigInt(p * 100 + i)),
    coinId: 2,
    coinName: "USDT",
    bizType: i % 2 ? "deposit" : "trans_to_exchange",
    deltaAmount: i % 3 ? "-12.34567" : "100.5",
    afterAmount: "123456.789",
    fees: "0",
    cTime: 1714521600000 + i
  })))
const which = process.argv[2]
const rounds = Number(process.argv[3] ?? 10)
let n = 0
const t0 = performance.now()
for (let r = 0; r < rounds; r++) {
  for (const page of pages) {
    n += (which === "old"
      ? old(page)
      : Records.csv(Records.bill, page as unknown as ReadonlyArray<Bill.Bill>, Formats.CSV_FILE)).length
  }
}
console.log(which, rounds, n, (performance.now() - t0).toFixed(0), "ms")
