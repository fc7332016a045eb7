// What the venue pushes about (re-exported by PushVenue with their documentation), and the faults it can inject.
import type { Push } from "@spotkit/core"
import type { FillView, OrderView, SpotBalance } from "../../EngineModel.ts"
import type { Level } from "./depth.ts"

export type { Level }

export type VenueEvent =
  | {
    readonly _tag: "Book"
    readonly symbol: string
    readonly bids: ReadonlyArray<Level>
    readonly asks: ReadonlyArray<Level>
  }
  | {
    readonly _tag: "Trade"
    readonly symbol: string
    readonly time: number
    readonly price: string
    readonly size: string
    readonly value: string
    readonly buyerMaker: boolean
  }
  | {
    readonly _tag: "Kline"
    readonly symbol: string
    readonly interval: Push.KlineInterval
    readonly bar: {
      readonly klineTime: number
      readonly open: string
      readonly high: string
      readonly low: string
      readonly close: string
      readonly size: string
      readonly value: string
    }
  }
  | {
    readonly _tag: "Ticker"
    readonly symbol: string
    readonly fields: { readonly lastPrice: string } & Readonly<Record<string, unknown>>
  }
  | { readonly _tag: "Order"; readonly userId: string; readonly order: OrderView; readonly time: number }
  | { readonly _tag: "Fill"; readonly userId: string; readonly fill: FillView; readonly time: number }
  | {
    readonly _tag: "Balance"
    readonly userId: string
    readonly balances: ReadonlyArray<SpotBalance>
    readonly time: number
  }

export interface Source {
  /** A listed symbol's book; undefined for a symbol not listed (every public channel of it is refused). */
  readonly depth: (symbol: string) =>
    | { readonly bids: ReadonlyArray<Level>; readonly asks: ReadonlyArray<Level> }
    | undefined
}

export interface Faults {
  readonly disconnect?: number | undefined
  readonly close?: number | undefined
  readonly stall?: number | undefined
  readonly dup?: number | undefined
  readonly gap?: number | undefined
  readonly noAck?: boolean | undefined
  /** Depth subscriptions are acknowledged, then get changes but no snapshot (a lost one, or a venue that sends none). */
  readonly noSnapshot?: boolean | undefined
  /** A depth subscription's snapshot is sent before its acknowledgement (a client drops it: not yet subscribed). */
  readonly snapshotFirst?: boolean | undefined
  readonly refuseAuth?: boolean | undefined
  readonly storm?: boolean | undefined
}

const COUNTS = ["disconnect", "close", "stall", "dup", "gap"] as const
const FLAGS = ["noAck", "noSnapshot", "snapshotFirst", "refuseAuth", "storm"] as const

/**
 * Parses `disconnect=5,gap=3,noAck` (the sandbox's `--push-faults`): counts are positive integers, flags stand
 * alone. Answers the faults, or what is wrong with the text.
 */
export const parseFaults = (text: string): Faults | string => {
  const faults: Record<string, number | boolean> = {}
  for (const part of text.split(",").map((s) => s.trim()).filter((s) => s !== "")) {
    const [name = "", value] = part.split("=")
    if ((COUNTS as ReadonlyArray<string>).includes(name)) {
      if (value === undefined || !/^[1-9]\d{0,8}$/.test(value)) return `${name} needs a positive integer (${name}=N)`
      faults[name] = Number(value)
    } else if ((FLAGS as ReadonlyArray<string>).includes(name)) {
      if (value !== undefined) return `${name} takes no value`
      faults[name] = true
    } else {
      return `unknown push fault ${JSON.stringify(name)} (known: ${[...COUNTS, ...FLAGS].join(", ")})`
    }
  }
  return faults as Faults
}
