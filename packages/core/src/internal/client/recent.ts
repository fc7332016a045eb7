// A set of the most recent keys a client met, bounded: the oldest added goes once there are more than `capacity`.
// Recoveries remember with it what they must not take twice or must look at again (transfers a client knows, cancels
// given up in flight), without growing for as long as the client lives.

/** The `capacity` keys added last (adding one again makes it the newest). */
export class Recent {
  private readonly keys = new Set<string>()
  private readonly capacity: number
  constructor(capacity = 10_000) {
    this.capacity = capacity
  }
  add(key: string): void {
    this.keys.delete(key)
    this.keys.add(key)
    if (this.keys.size > this.capacity) this.keys.delete(this.keys.values().next().value!)
  }
  has(key: string): boolean {
    return this.keys.has(key)
  }
  delete(key: string): void {
    this.keys.delete(key)
  }
}
