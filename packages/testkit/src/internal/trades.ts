// Every trade as numbers in columns; `Engine.tradeList` formats them only when asked, so recording costs a few
// array writes per fill instead of an object and seven strings.

export class TradeLog {
  size = 0
  private capacity = 1024
  maker = new Int32Array(1024)
  taker = new Int32Array(1024)
  price = new Float64Array(1024)
  lots = new Float64Array(1024)
  value = new Float64Array(1024)
  makerFee = new Float64Array(1024)
  takerFee = new Float64Array(1024)
  time = new Float64Array(1024)

  append(
    maker: number,
    taker: number,
    price: number,
    lots: number,
    value: number,
    makerFee: number,
    takerFee: number,
    time: number
  ): void {
    if (this.size === this.capacity) this.grow()
    const i = this.size++
    this.maker[i] = maker
    this.taker[i] = taker
    this.price[i] = price
    this.lots[i] = lots
    this.value[i] = value
    this.makerFee[i] = makerFee
    this.takerFee[i] = takerFee
    this.time[i] = time
  }

  private grow(): void {
    const capacity = this.capacity * 2
    const i32 = (from: Int32Array) => {
      const to = new Int32Array(capacity)
      to.set(from)
      return to
    }
    const f64 = (from: Float64Array) => {
      const to = new Float64Array(capacity)
      to.set(from)
      return to
    }
    this.maker = i32(this.maker)
    this.taker = i32(this.taker)
    this.price = f64(this.price)
    this.lots = f64(this.lots)
    this.value = f64(this.value)
    this.makerFee = f64(this.makerFee)
    this.takerFee = f64(this.takerFee)
    this.time = f64(this.time)
    this.capacity = capacity
  }
}
