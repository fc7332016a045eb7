// Reading a `Config.Wrap` with every problem collected. `Config.unwrap` turns the wrap into `Config.all` over its
// leaves, which stops at the first leaf that fails (`Effect.all` in its default mode, then `Result.all`), so a user
// with four variables unset would learn of one per run. Here every leaf is read, in the order `Config.unwrap` reads
// them (each object's keys in order, depth first), with `Effect.all`'s `mode: "result"`; the wrap's value is built
// only when all succeed. A leaf of the wrap is read at the root, as `Config.unwrap` reads it: the object's keys give
// the value its shape, not the variables their names.
import { Array as Arr, Config, Effect } from "effect"

type Node = Config.Config<unknown> | { readonly [key: string]: Node }

// The wrap's leaves, depth first, each object's keys in order.
const leavesOf = (node: Node, into: Array<Config.Config<unknown>>): Array<Config.Config<unknown>> => {
  if (Config.isConfig(node)) into.push(node)
  else for (const child of Object.values(node)) leavesOf(child, into)
  return into
}

// The wrap's shape with the leaves' values, taken in the order `leavesOf` listed them.
const build = (node: Node, values: Iterator<unknown>): unknown =>
  Config.isConfig(node)
    ? values.next().value
    : Object.fromEntries(Object.entries(node).map(([key, child]) => [key, build(child, values)]))

/**
 * Reads every leaf of the wrap: its value when all succeed, otherwise every leaf's error, in order (never empty).
 */
export const readAll = <A>(
  wrap: Config.Wrap<A>
): Effect.Effect<A, Arr.NonEmptyReadonlyArray<Config.ConfigError>> => {
  const node = wrap as Node
  return Effect.flatMap(Effect.all(leavesOf(node, []), { mode: "result" }), (results) => {
    const errors = Arr.getFailures(results)
    return Arr.isArrayNonEmpty(errors)
      ? Effect.fail(errors)
      : Effect.succeed(build(node, Arr.getSuccesses(results).values()) as A)
  })
}
