// Paged lists as lazy Streams: no request before the first pull, one per page pulled. Each stream gets the call for
// one page (already retried) and decides only what to ask for next and what to yield.
import { Effect, Option, Stream } from "effect"
import type * as Bill from "../Bill.ts"
import type * as Order from "../Order.ts"
import type { TradingPair } from "../Primitives.ts"
import * as SpotError from "../SpotError.ts"

/** Pages in a row that may bring nothing new before a stream decides the venue does not page. */
const STALE_PAGES = 3

const stalled = (description: string) =>
  Effect.fail(new SpotError.DecodeError({ kind: "schema", description, excerpt: "" }))

/**
 * Open orders, newest first, from pageNo 0 until a page is shorter than the page size. Orders that move between
 * pages while paging (new orders push older ones down) are never yielded twice. A venue that ignores `pageNo` would
 * answer the same full page forever: after `STALE_PAGES` full pages without a new order the stream fails.
 */
export const openOrders = (
  page: (query: typeof Order.OpenOrdersQuery.Type) => Effect.Effect<Order.OpenOrdersPage, SpotError.SpotErrorReason>,
  symbol: TradingPair,
  limit: number
): Stream.Stream<Order.OpenOrder, SpotError.SpotErrorReason> =>
  Stream.suspend(() => {
    const seen = new Set<string>()
    let stale = 0
    return Stream.paginate(0, (pageNo: number) =>
      Effect.flatMap(page({ symbol, limit, pageNo }), (answer) => {
        const list = answer.orderInfoResultList ?? []
        const fresh = list.filter((order) => !seen.has(order.orderId))
        for (const order of fresh) seen.add(order.orderId)
        const last = list.length < limit || answer.nextPage === false
        stale = !last && fresh.length === 0 ? stale + 1 : 0
        if (stale >= STALE_PAGES) {
          return stalled(
            `open-orders paging made no progress: ${STALE_PAGES} full pages without a new order` +
              ` (pageNo ${pageNo}); does the venue honour pageNo?`
          )
        }
        return Effect.succeed([fresh, last ? Option.none<number>() : Option.some(pageNo + 1)] as const)
      }))
  })

interface BillCursor {
  /** Exclusive upper time bound of the next request. */
  readonly endTime: number | undefined
  readonly pageIndex: number
  /** Ids already yielded at the boundary time `boundary` (they reappear under an `endTime` of boundary + 1). */
  readonly boundary: number
  readonly boundaryIds: ReadonlySet<string>
}

/**
 * Funding bills, newest first, by keyset paging over time: after a page, the next request asks for bills before
 * (oldest + 1) and drops those of that millisecond it already yielded. New bills (newer than the cursor) cannot
 * shift it, so nothing is skipped or repeated. Only when a whole page shares one millisecond does it step
 * `pageIndex` within the fixed bound, where the set is stable because bills only arrive newer.
 *
 * It also defends against venues that bend the rules: bills outside the exclusive bounds are dropped (an inclusive
 * `endTime` would repeat the boundary), a page smaller than asked for is not mistaken for the last when the venue
 * caps the size, a boolean `hasNextPage` is trusted, bills out of newest-first order fail the stream (paging by time
 * would be wrong), and pages that bring nothing new `STALE_PAGES` times in a row fail it rather than loop.
 */
export const fundingBills = (
  page: (query: Bill.BillPageQuery) => Effect.Effect<Bill.BillPage, SpotError.SpotErrorReason>,
  query: typeof Bill.BillQuery.Type
): Stream.Stream<Bill.Bill, SpotError.SpotErrorReason> =>
  Stream.suspend(() => {
    const pageSize = query.pageSize ?? 100
    const start: BillCursor = { endTime: query.endTime, pageIndex: 1, boundary: -1, boundaryIds: new Set() }
    let stale = 0
    return Stream.paginate(start, (cursor: BillCursor) =>
      Effect.flatMap(
        page({
          coinId: query.coinId,
          startTime: query.startTime,
          endTime: cursor.endTime,
          pageIndex: cursor.pageIndex,
          pageSize
        }),
        (answer) => {
          const items = answer.items ?? []
          for (let i = 1; i < items.length; i++) {
            if (items[i]!.cTime > items[i - 1]!.cTime) {
              return stalled(`bills are not newest first (cTime ${items[i - 1]!.cTime} then ${items[i]!.cTime})`)
            }
          }
          const fresh = items.filter((bill) =>
            (query.startTime === undefined || bill.cTime > query.startTime) &&
            (cursor.endTime === undefined || bill.cTime < cursor.endTime) &&
            !(bill.cTime === cursor.boundary && cursor.boundaryIds.has(bill.billId))
          )
          // Within one millisecond's cluster (stepping pageIndex under a fixed bound) an honest venue always serves
          // bills not yet seen; old ones mean it ignores pageIndex, and trusting its hasNextPage would skip bills.
          if (cursor.pageIndex > 1 && items.length > 0 && fresh.length === 0) {
            return stalled(`bills paging made no progress at pageIndex ${cursor.pageIndex}; does the venue honour it?`)
          }
          const served = typeof answer.pageSize === "number" && answer.pageSize > 0
            ? Math.min(answer.pageSize, pageSize)
            : pageSize
          const done = items.length === 0 ||
            (typeof answer.hasNextPage === "boolean" ? !answer.hasNextPage : items.length < served)
          if (done) return Effect.succeed([fresh, Option.none<BillCursor>()] as const)
          stale = fresh.length === 0 ? stale + 1 : 0
          if (stale >= STALE_PAGES) {
            return stalled(`bills paging made no progress: ${STALE_PAGES} pages without a new bill`)
          }
          const oldest = items[items.length - 1]!.cTime
          const ids = new Set(oldest === cursor.boundary ? cursor.boundaryIds : [])
          for (const bill of items) if (bill.cTime === oldest) ids.add(bill.billId)
          const stuck = cursor.endTime !== undefined && oldest + 1 >= cursor.endTime
          const next: BillCursor = stuck
            ? { endTime: cursor.endTime, pageIndex: cursor.pageIndex + 1, boundary: oldest, boundaryIds: ids }
            : { endTime: oldest + 1, pageIndex: 1, boundary: oldest, boundaryIds: ids }
          return Effect.succeed([fresh, Option.some(next)] as const)
        }
      ))
  })
