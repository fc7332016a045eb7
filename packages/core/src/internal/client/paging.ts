// Paged lists as lazy Streams: no request before the first pull, one per page pulled. Each stream gets the call for
// one page (already retried) and decides only what to ask for next and what to yield.
import { Effect, Option, Stream } from "effect"
import type * as Bill from "../../Bill.ts"
import type * as Fill from "../../Fill.ts"
import type * as Order from "../../Order.ts"
import type { TradingPair } from "../../Primitives.ts"
import * as SpotError from "../../SpotError.ts"
import type * as Transfer from "../../Transfer.ts"

/** Pages in a row that may bring nothing new before a stream decides the venue does not page. */
const STALE_PAGES = 3

const stalled = (description: string) =>
  Effect.fail(new SpotError.DecodeError({ kind: "schema", description, excerpt: "" }))

/** A list the venue pages, newest first: how to ask for a page and how to read one. */
interface PagedList<Request, Item, Page> {
  /** What the list holds, for messages ("bills", "orders", "fills", "open-orders", "transfers"). */
  readonly noun: string
  /** The first page's number (bills and transfers count from 1, the others from 0). */
  readonly firstPage: number
  readonly fetch: (request: Request) => Effect.Effect<Page, SpotError.SpotErrorReason>
  readonly items: (page: Page) => ReadonlyArray<Item>
  /** The venue's "there is a next page" when it sends a boolean; anything else is not trusted. */
  readonly hasNext: (page: Page) => unknown
  readonly id: (item: Item) => string
}

/** A list the venue pages by offset (a page number and a size). */
export interface OffsetList<Item, Page>
  extends PagedList<{ readonly page: number; readonly pageSize: number }, Item, Page>
{
  /** One of what the list holds, for messages ("order", "transfer"). */
  readonly one: string
  /** The name of the page number on the wire, for messages ("pageNo", "page"). */
  readonly pageParameter: string
  /**
   * Whether a page shorter than asked may be the venue's cap rather than the end (its docs leave the size it serves
   * open). Then the first short page as large as any before (every page before it was full) is followed by pages asked
   * at its size, which places them right whether the venue offsets by the size asked or by the size served, and a
   * page shorter than that ends the list: one more request at the end of a list. Without it a short page ends the
   * list.
   */
  readonly mayCap: boolean
}

/**
 * A list paged by offset, newest first, as a stream from the first page until a page is short (or said to be the
 * last). Records that move between pages while paging (newer ones push older ones down) are never yielded twice, nor
 * is a record a page holds twice. A full page of records all yielded before is asked again once before the stream
 * moves on: newer records that pushed them down answer the same, while an answer to the request before (a cache
 * replaying it) is followed by the page owed. A venue that ignores the page number would answer the same full page
 * forever: after `STALE_PAGES` full pages in a row without a new record (the page asked again included) the stream
 * fails. Records newer than the first page's that arrive while paging are not sought: an offset list gives no way to
 * find them but from the start.
 */
export const byOffset = <Item, Page>(
  list: OffsetList<Item, Page>,
  pageSize: number
): Stream.Stream<Item, SpotError.SpotErrorReason> =>
  Stream.suspend(() => {
    const seen = new Set<string>()
    let stale = 0
    let largest = 0
    return Stream.paginate(
      { page: list.firstPage, size: pageSize, again: false },
      ({ again, page, size }) =>
        Effect.flatMap(list.fetch({ page, pageSize: size }), (answer) => {
          const items = list.items(answer)
          const fresh = items.filter((item) => {
            const id = list.id(item)
            if (seen.has(id)) return false
            seen.add(id)
            return true
          })
          const short = items.length < size
          // A short page as large as any before is the first one short: a cap, or the end (see `mayCap`).
          const capped = list.mayCap && short && items.length > 0 && items.length >= largest
          largest = Math.max(largest, items.length)
          const last = (short && !capped) || list.hasNext(answer) === false
          const nothingNew = !last && fresh.length === 0
          stale = nothingNew ? stale + 1 : 0
          if (stale >= STALE_PAGES) {
            return stalled(
              `${list.noun} paging made no progress: ${STALE_PAGES} full pages without a new ${list.one}` +
                ` (${list.pageParameter} ${page}); does the venue honour ${list.pageParameter}?`
            )
          }
          const next = nothingNew && !again
            ? { page, size, again: true }
            : { page: page + 1, size: capped ? items.length : size, again: false }
          return Effect.succeed([fresh, last ? Option.none<typeof next>() : Option.some(next)] as const)
        })
    )
  })

/**
 * Open orders, newest first, by offset from pageNo 0 (`byOffset`). A page shorter than asked ends the list: the venue
 * documents pages of up to 100 (the size asked by default), and asking past a short page would cost every short list
 * a second request and fail on a venue that ignores `pageNo` (review r70-pg F3: a venue serving fewer than asked would
 * end the list early; not guarded against, documented).
 */
export const openOrders = (
  page: (query: typeof Order.OpenOrdersQuery.Type) => Effect.Effect<Order.OpenOrdersPage, SpotError.SpotErrorReason>,
  symbol: TradingPair,
  limit: number
): Stream.Stream<Order.OpenOrder, SpotError.SpotErrorReason> =>
  byOffset({
    noun: "open-orders",
    one: "order",
    pageParameter: "pageNo",
    firstPage: 0,
    fetch: ({ page: pageNo, pageSize }) => page({ symbol, limit: pageSize, pageNo }),
    items: (answer) => answer.orderInfoResultList ?? [],
    hasNext: (answer) => answer.nextPage,
    id: (order) => order.orderId,
    mayCap: false
  }, limit)

/**
 * The internal transfers with their status, newest first, by offset from page 1 (`byOffset`). With `mayCap` (the
 * default) a short page may be a cap: the venue documents 200 at most a page and a gateway may serve fewer, so the end
 * of a list costs one more request, of weight 100. The lookup of a lost transfer goes without (see
 * `transferRecovery.ts`).
 */
export const transfers = (
  page: (
    query: typeof Transfer.TransferStatusQuery.Type
  ) => Effect.Effect<Transfer.TransferStatusResponse, SpotError.SpotErrorReason>,
  filter: typeof Transfer.TransferFilter.Type,
  mayCap = true
): Stream.Stream<Transfer.TransferRecord, SpotError.SpotErrorReason> =>
  byOffset({
    noun: "transfers",
    one: "transfer",
    pageParameter: "page",
    firstPage: 1,
    fetch: ({ page: pageNo, pageSize }) => page({ ...filter, page: pageNo, pageSize }),
    items: (answer) => answer.list ?? [],
    hasNext: () => undefined,
    id: (record) => record.withdrawId,
    mayCap
  }, filter.pageSize ?? 200)

/**
 * A list the venue pages by time. The bounds of a request are exclusive on the client's side; whether the venue
 * honours them inclusively or exclusively, nothing at a bound is lost (see `byTime`).
 */
export interface TimeList<Item, Page> extends
  PagedList<
    {
      readonly start: number | undefined
      readonly end: number | undefined
      readonly pageIndex: number
      readonly pageSize: number
    },
    Item,
    Page
  >
{
  /**
   * The page size the venue says it served, when it says one (a venue may cap the size asked for). Without it and
   * without a boolean `hasNext`, a short page is the end only once a page as large was served before (see `byTime`).
   */
  readonly served: (page: Page) => unknown
  readonly time: (item: Item) => number
}

interface Cursor {
  /** Exclusive upper time bound of the next request. */
  readonly end: number | undefined
  readonly pageIndex: number
  /** The ids of the page before, when it was asked under the same bound (to see a venue ignore the page index). */
  readonly previous: string | undefined
  /** Ids already yielded at the boundary time `boundary` (they reappear under an `end` of boundary + 1). */
  readonly boundary: number
  readonly boundaryIds: ReadonlySet<string>
  /**
   * The ids of the records in the pages read under this bound where it cannot move (at `boundary`, or at the bound
   * itself on an inclusive venue): the pages of one bound never overlap.
   */
  readonly readIds: ReadonlySet<string>
  /** The ids of the answer to this same request, when it is asked again (see `byTime`: a page answered again). */
  readonly asked?: string | undefined
}

/**
 * A list paged by time, newest first, as a stream by keyset paging: after a page, the next request asks for records
 * before (oldest + 1) and drops those of that millisecond it already yielded. New records (newer than the cursor)
 * cannot shift it, so nothing is skipped or repeated. Only when a whole page shares one millisecond does it step the
 * page index within the fixed bound, where the set is stable because records only arrive newer.
 *
 * It also defends against venues that bend the rules: records outside the exclusive bounds are dropped (an inclusive
 * bound would repeat the boundary), a page smaller than asked for is not mistaken for the last when the venue caps the
 * size (it says the size it served; if it says neither that nor whether a next page follows, the first short page is
 * followed by pages asked at its size, and the stream ends at a page shorter than that: one more request at the end
 * of a list), a boolean "next page" is trusted (an empty page said not to be the last is asked again: three in a row
 * end the stream), records out of newest-first order fail the stream (paging by time would be wrong), where the bound
 * cannot move, the answer to another request (a page answered again, an overlapping page, one without the bound) is
 * dropped and the request asked again (so is a page of a stepped index that holds a record read before under the
 * bound: the venue ordered that millisecond's records anew), and pages that bring nothing new `STALE_PAGES` times in a
 * row fail it rather than loop (an inclusive venue's pages of records at the bound itself excepted: the index steps
 * through them).
 */
export const byTime = <Item, Page>(
  list: TimeList<Item, Page>,
  bounds: { readonly start: number | undefined; readonly end: number | undefined; readonly pageSize: number }
): Stream.Stream<Item, SpotError.SpotErrorReason> =>
  Stream.suspend(() => {
    const { noun, time } = list
    // The size asked: the one given, or a venue's cap once seen (below).
    let pageSize = bounds.pageSize
    let largest = 0
    const first: Cursor = {
      end: bounds.end,
      pageIndex: list.firstPage,
      previous: undefined,
      boundary: -1,
      boundaryIds: new Set(),
      readIds: new Set()
    }
    let stale = 0
    let empties = 0
    return Stream.paginate(first, (cursor: Cursor) =>
      Effect.flatMap(
        list.fetch({ start: bounds.start, end: cursor.end, pageIndex: cursor.pageIndex, pageSize }),
        (answer) => {
          const items = list.items(answer)
          for (let i = 1; i < items.length; i++) {
            if (time(items[i]!) > time(items[i - 1]!)) {
              return stalled(
                `${noun} are not newest first (cTime ${time(items[i - 1]!)} then ${time(items[i]!)})`
              )
            }
          }
          // A record the page holds twice is yielded once.
          const inPage = new Set<string>()
          const fresh = items.filter((item) => {
            const id = list.id(item)
            if (inPage.has(id)) return false
            inPage.add(id)
            return (bounds.start === undefined || time(item) > bounds.start) &&
              (cursor.end === undefined || time(item) < cursor.end) &&
              !(time(item) === cursor.boundary && cursor.boundaryIds.has(id))
          })
          // Within one millisecond's cluster (stepping the page index under a fixed bound) a venue that answers the
          // page it answered for the index before ignores the index: trusting its "next page" would skip records.
          const ids = items.map(list.id).join(",")
          if (cursor.previous !== undefined && items.length > 0 && fresh.length === 0 && ids === cursor.previous) {
            return stalled(
              `${noun} paging made no progress at pageIndex ${cursor.pageIndex}; does the venue honour it?`
            )
          }
          const said = list.served(answer)
          const told = typeof said === "number" && said > 0
          const served = told ? Math.min(said, pageSize) : pageSize
          const hasNext = list.hasNext(answer)
          const flagged = typeof hasNext === "boolean"
          // Told neither the size served nor whether a page follows, a short page as large as any before is the first
          // one short (every page before it was full): a cap, or the end. The stream goes on below it, asking at its
          // size (so a stepped index places pages right), and a page shorter than that ends it.
          const short = items.length < served
          const capped = !flagged && !told && short && items.length > 0 && items.length >= largest
          largest = Math.max(largest, items.length)
          // An empty page the venue says is not the last (a glitch in the middle of the list) is asked for again;
          // only `STALE_PAGES` of them in a row end the stream there.
          empties = items.length === 0 && hasNext === true ? empties + 1 : 0
          if (empties > 0 && empties < STALE_PAGES) return Effect.succeed([fresh, Option.some(cursor)] as const)
          const oldest = items.length === 0 ? undefined : time(items[items.length - 1]!)
          // A page that reached the start bound (an inclusive venue's) leaves nothing wanted after it.
          const done = oldest === undefined || (bounds.start !== undefined && oldest <= bounds.start) ||
            (flagged ? !hasNext : short && !capped)
          if (done) return Effect.succeed([fresh, Option.none<Cursor>()] as const)
          if (capped) pageSize = items.length
          // Nothing older than the bound's last millisecond: the bound cannot move. That millisecond stays the
          // boundary (an inclusive venue's page may hold only records at the bound itself, all yielded before).
          const stuck = cursor.end !== undefined && oldest + 1 >= cursor.end
          // Where the bound cannot move, the answer to another request (the page before again, another index, the
          // list without its bound) would make the index step past records not read: it is dropped and the request
          // asked again. It shows by a record past the bound, by a record in an earlier page under this bound (the
          // pages of a fixed bound do not overlap: nothing enters them meanwhile), or by a page starting at the bound
          // itself, which an exclusive venue never answers (it may be the list without its bound), until the same
          // request gets the same answer twice (an inclusive venue's records at its bound).
          const newest = time(items[0]!)
          const atBound = stuck && newest === cursor.end
          // A page asked by a stepped index overlaps a page read under this bound also when it reaches older
          // records: the bound's last millisecond came in another order (a venue that orders a millisecond's records
          // anew for each request), so the record this one displaced is on no page read.
          const stepped = cursor.pageIndex > list.firstPage
          const reread = (stuck || stepped) && items.some((item) => cursor.readIds.has(list.id(item)))
          const strayed = reread || (stuck && (newest > cursor.end! || (atBound && cursor.asked !== ids)))
          // Stepping the index through an inclusive venue's records at its bound is progress, however many pages.
          stale = !strayed && (fresh.length > 0 || atBound) ? 0 : stale + 1
          if (stale >= STALE_PAGES) {
            return stalled(
              `${noun} paging made no progress: ${STALE_PAGES} pages without a new ${noun.slice(0, -1)}` +
                (reread
                  ? ` (pages asked under one bound overlapped: does the venue keep the order of one millisecond's` +
                    ` ${noun} from one request to the next?)`
                  : "")
            )
          }
          if (strayed) return Effect.succeed([fresh.slice(0, 0), Option.some({ ...cursor, asked: ids })] as const)
          const boundary = stuck ? cursor.end! - 1 : oldest
          const kept = boundary === cursor.boundary
          const atBoundary = new Set(kept ? cursor.boundaryIds : [])
          const read = new Set(stuck && kept ? cursor.readIds : [])
          for (const item of items) {
            if (time(item) === boundary) atBoundary.add(list.id(item))
            if (stuck) read.add(list.id(item))
          }
          const next: Cursor = stuck
            ? {
              end: cursor.end,
              pageIndex: cursor.pageIndex + 1,
              previous: ids,
              boundary,
              boundaryIds: atBoundary,
              readIds: read
            }
            : {
              end: oldest + 1,
              pageIndex: list.firstPage,
              previous: undefined,
              boundary,
              boundaryIds: atBoundary,
              readIds: new Set()
            }
          return Effect.succeed([fresh, Option.some(next)] as const)
        }
      ))
  })

/** Funding bills, newest first, paged by time (`byTime`). */
export const fundingBills = (
  page: (query: typeof Bill.BillPageQuery.Type) => Effect.Effect<Bill.BillPage, SpotError.SpotErrorReason>,
  query: typeof Bill.BillQuery.Type
): Stream.Stream<Bill.Bill, SpotError.SpotErrorReason> =>
  byTime({
    noun: "bills",
    firstPage: 1,
    fetch: ({ end, pageIndex, pageSize, start }) =>
      page({ coinId: query.coinId, startTime: start, endTime: end, pageIndex, pageSize }),
    items: (answer) => answer.items ?? [],
    hasNext: (answer) => answer.hasNextPage,
    served: (answer) => answer.pageSize,
    time: (bill) => bill.cTime,
    id: (bill) => bill.billId
  }, { start: query.startTime, end: query.endTime, pageSize: query.pageSize ?? 100 })

/** Order history of a symbol, newest first, paged by time (`byTime`). */
export const orderHistory = (
  page: (
    query: typeof Order.OrderHistoryQuery.Type
  ) => Effect.Effect<Order.OrderHistoryPage, SpotError.SpotErrorReason>,
  filter: typeof Order.OrderHistoryFilter.Type
): Stream.Stream<Order.OrderRecord, SpotError.SpotErrorReason> =>
  byTime({
    noun: "orders",
    firstPage: 0,
    fetch: ({ end, pageIndex, pageSize, start }) =>
      page({ symbol: filter.symbol, after: start, before: end, pageIndex, pageSize }),
    items: (answer) => answer.orderInfoResultList ?? [],
    hasNext: (answer) => answer.nextPage,
    served: () => undefined,
    time: (order) => order.cTime,
    id: (order) => order.orderId
  }, { start: filter.after, end: filter.before, pageSize: filter.pageSize ?? 100 })

/** Fills of a symbol (or of one order), newest first, paged by time (`byTime`). */
export const fills = (
  page: (query: typeof Fill.FillsQuery.Type) => Effect.Effect<Fill.FillsPage, SpotError.SpotErrorReason>,
  filter: typeof Fill.FillsFilter.Type
): Stream.Stream<Fill.FillRecord, SpotError.SpotErrorReason> =>
  byTime({
    noun: "fills",
    firstPage: 0,
    fetch: ({ end, pageIndex, pageSize, start }) =>
      page({ symbol: filter.symbol, orderId: filter.orderId, after: start, before: end, pageIndex, pageSize }),
    items: (answer) => answer.fillsOrderResultList ?? [],
    hasNext: (answer) => answer.nextPage,
    served: () => undefined,
    time: (fill) => fill.cTime,
    id: (fill) => fill.fillId
  }, { start: filter.after, end: filter.before, pageSize: filter.pageSize ?? 100 })
