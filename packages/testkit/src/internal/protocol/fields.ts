// Request bodies and query strings into the fields the engine takes, or the venue's refusal: a body that is no JSON
// object is 40017, a missing field 40019, a field of the wrong type or form 40020. Bodies are parsed with every number
// tagged (`Json.parse(text, "tagged")`), so a number where a string is required is told apart from its digits as a
// string, and a 64-bit id keeps every digit. A GET's parameters come from its query string, every value a string.
import { Json } from "@spotkit/core"
import { Result } from "effect"
import type * as Engine from "../../Engine.ts"
import { isClientOrderId } from "../engine/requests.ts"
import { Refusal, refusal } from "./wire.ts"

export type Body = { readonly [key: string]: unknown }

/** Whether a parsed JSON value is an object (not null, not an array). */
export const isObject = (value: unknown): value is Body =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The body as a JSON object, or 40017. */
export const parseBody = (text: string): Body | Refusal => {
  const parsed = Result.try(() => Json.parse(text, "tagged"))
  if (Result.isFailure(parsed)) return refusal("40017")
  const value = parsed.success
  // A bare number is tagged as an object too, but is no body.
  if (!isObject(value) || value instanceof Json.JsonNumber) return refusal("40017")
  return value as Body
}

/**
 * The parameters of a request's query string (`path?a=1&b=2`, decoded as a form: `%xx` and `+`) as a body of
 * strings; none without a query. A parameter given twice is 40020: which one the venue would take is not known.
 */
export const parseQuery = (path: string): Body | Refusal => {
  const at = path.indexOf("?")
  if (at < 0) return {}
  const fields = new Map<string, string>()
  for (const [name, value] of new URLSearchParams(path.slice(at + 1))) {
    if (fields.has(name)) return refusal("40020", name)
    fields.set(name, value)
  }
  // As own properties, whatever their names (`__proto__` included), as JSON bodies have them.
  return Object.fromEntries(fields)
}

const missing = (value: unknown): boolean => value === undefined || value === null || value === ""

/** A string field; an absent, null or empty one is 40019 when required. */
export const stringField = (body: Body, name: string, required: boolean): string | undefined | Refusal => {
  const value = body[name]
  if (missing(value)) return required ? refusal("40019", name) : undefined
  return typeof value === "string" ? value : refusal("40020", name)
}

/** The digits of a JSON number or of a string, if the value is either. */
const textOf = (value: unknown): string | undefined =>
  value instanceof Json.JsonNumber ? value.source : typeof value === "string" ? value : undefined

/** An optional integer field: a JSON number or a string of digits, within [min, max]. */
export const integerField = (body: Body, name: string, min: number, max: number): number | undefined | Refusal => {
  const value = body[name]
  if (missing(value)) return undefined
  const text = textOf(value)
  if (text === undefined || !/^-?\d{1,16}$/.test(text)) return refusal("40020", name)
  const n = Number(text)
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : refusal("40020", name)
}

/** Optional integer fields, each in its range, read in the order given: the first one out of range refuses. */
export const integerFields = <K extends string>(
  body: Body,
  ranges: { readonly [k in K]: readonly [min: number, max: number] }
): { [k in K]: number | undefined } | Refusal => {
  const out: Partial<Record<K, number | undefined>> = {}
  for (const name of Object.keys(ranges) as Array<K>) {
    const value = integerField(body, name, ranges[name][0], ranges[name][1])
    if (value instanceof Refusal) return value
    out[name] = value
  }
  return out as { [k in K]: number | undefined }
}

/** A required 64-bit id: a JSON number or a digit string, kept as exact digits. */
export const longField = (body: Body, name: string): string | Refusal => {
  const value = body[name]
  if (missing(value)) return refusal("40019", name)
  return longOf(value, name)
}

/** An optional 64-bit id, as `longField` takes it. */
export const optionalLongField = (body: Body, name: string): string | undefined | Refusal =>
  missing(body[name]) ? undefined : longOf(body[name], name)

const longOf = (value: unknown, name: string): string | Refusal => {
  const text = textOf(value)
  return text !== undefined && /^\d{1,20}$/.test(text) ? text.replace(/^0+(?=\d)/, "") : refusal("40020", name)
}

/** An optional clientOrderId (under the venue's name for it): a string of the venue's form, else 40020. */
export const clientIdField = (body: Body, name: string): string | undefined | Refusal => {
  const value = stringField(body, name, false)
  return typeof value === "string" && !isClientOrderId(value) ? refusal("40020", name) : value
}

/**
 * An optional list of ids: a non-empty JSON array (40020 otherwise) of 64-bit ids (`longField`'s form) or of
 * clientOrderIds, every one valid.
 */
export const idListField = (
  body: Body,
  name: string,
  kind: "orderId" | "clientOrderId"
): ReadonlyArray<string> | undefined | Refusal => {
  const value = body[name]
  if (value === undefined || value === null) return undefined
  if (!Array.isArray(value) || value.length === 0) return refusal("40020", name)
  const ids: Array<string> = []
  for (const item of value as ReadonlyArray<unknown>) {
    const id = kind === "orderId" ? longOf(item, name) : typeof item === "string" && isClientOrderId(item) ? item : ""
    if (id instanceof Refusal || id === "") return refusal("40020", name)
    ids.push(id)
  }
  return ids
}

const ORDER_FIELDS = ["symbol", "side", "orderType", "force", "price", "quantity", "clientOrderId"] as const

/**
 * An order's fields (docs/venue/trading.md#place-order); `symbol` given for a batch item, whose symbol is the batch's.
 */
export const orderRequest = (body: Body, symbol: string | undefined): Engine.OrderRequest | Refusal => {
  const fields: Record<string, string | undefined> = {}
  for (const name of ORDER_FIELDS) {
    if (name === "symbol" && symbol !== undefined) continue
    const value = stringField(body, name, name !== "price")
    if (value instanceof Refusal) return value
    fields[name] = value
  }
  return {
    symbol: symbol ?? fields.symbol!,
    side: fields.side!,
    orderType: fields.orderType!,
    force: fields.force!,
    price: fields.price,
    quantity: fields.quantity!,
    clientOrderId: fields.clientOrderId!
  }
}
