// The parts of an engine, floor by floor: the state (state.ts: stamps, registry, accounts, matching), the views over
// it (views.ts), and the parts that read both (bills, requests, cancels, history, transfers), each of which imports
// only the floors below it. `Engine` is the façade over them; `EngineUnits` reaches the same parts of an engine
// through `partsOf`.
import type { EngineOptions } from "../../EngineModel.ts"
import { Bills } from "./bills.ts"
import { Cancels } from "./cancels.ts"
import { EngineError } from "./errors.ts"
import { History } from "./history.ts"
import { Requests } from "./requests.ts"
import { State } from "./state.ts"
import { Transfers } from "./transfers.ts"
import { Views } from "./views.ts"

export class Parts extends State {
  readonly views: Views
  readonly bills: Bills
  readonly requests: Requests
  readonly cancels: Cancels
  readonly history: History
  readonly transfers: Transfers

  constructor(options: EngineOptions) {
    super(options)
    this.views = new Views(this)
    this.bills = new Bills(this, this.views)
    this.requests = new Requests(this)
    this.cancels = new Cancels(this, this.views)
    this.history = new History(this, this.views)
    this.transfers = new Transfers(this)
  }
}

const byEngine = new WeakMap<object, Parts>()

/** Records the parts behind an engine. */
export const attach = (engine: object, parts: Parts): void => {
  byEngine.set(engine, parts)
}

/** The parts behind an engine; throws for anything that is not one. */
export const partsOf = (engine: object): Parts => {
  const parts = byEngine.get(engine)
  if (parts === undefined) throw new EngineError("not an Engine")
  return parts
}
