// The event listeners of a `WebSocketLike` with no socket under it (the in-process transport, and the hostile venue of
// the tests), as a base class: added, removed, and called in the order they were added, a `once` listener removed
// before its call.
import type * as Socket from "effect/socket/Socket"

export type Kind = "open" | "message" | "error" | "close"

interface Listener {
  readonly fn: (event: Socket.WebSocketEvent) => void
  readonly once: boolean
}

export class Listened {
  private readonly byKind = new Map<Kind, Array<Listener>>()

  addEventListener(
    type: Kind,
    listener: (event: Socket.WebSocketEvent) => void,
    options?: { readonly once?: boolean }
  ): void {
    const list = this.byKind.get(type) ?? []
    list.push({ fn: listener, once: options?.once === true })
    this.byKind.set(type, list)
  }

  removeEventListener(type: Kind, listener: (event: Socket.WebSocketEvent) => void): void {
    const list = this.byKind.get(type)
    if (list === undefined) return
    const i = list.findIndex((l) => l.fn === listener)
    if (i >= 0) list.splice(i, 1)
  }

  protected dispatch(type: Kind, event: Socket.WebSocketEvent): void {
    const list = this.byKind.get(type)
    if (list === undefined) return
    for (const listener of list.slice()) {
      if (listener.once) this.removeEventListener(type, listener.fn)
      listener.fn(event)
    }
  }
}
