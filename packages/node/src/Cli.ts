/**
 * The `spotkit` command-line tool, built with `effect/cli`: export funding bills and fills; place, list, look up and
 * cancel orders (one, a batch from a file, or all of a symbol); the order history; balances; the symbols' trading
 * rules; market data (tickers, the order book, candles, recent trades); transfers between users and their status —
 * over a `SpotClient` configured from the environment (`NodeSpotClient.layerConfig`); and `watch`: the venue's push
 * streams (orders, fills, balances, book, trades, ticker, candles) as they happen, over `NodeSpotPush`.
 *
 * Data goes to stdout (or `--out FILE`), diagnostics to stderr. Exit codes: 0 on success, 1 when the venue or the
 * network failed (or a batch or a cancel had failed items, or an order, symbol or transfer asked for is not there), 2
 * for bad usage, configuration or input caught before anything was sent (the symbol's trading rules included, and a
 * bare `spotkit`), 130 after Ctrl-C, 143 after SIGTERM. Every expected error is one line on stderr, with the venue's
 * code where it gave one, never a stack trace and never a secret.
 *
 * Each command is one flat effect in a module of its own under `internal/cli/`: it obtains the client from the
 * environment (`internal/cli/shared.ts`), calls it, and prints; this module assembles the tree.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { CliConfig, Command, GlobalFlag } from "effect/cli"
import * as CliRuntime from "./CliRuntime.ts"
import { balances } from "./internal/cli/balances.ts"
import { bills } from "./internal/cli/bills.ts"
import { fills } from "./internal/cli/fills.ts"
import { market } from "./internal/cli/market.ts"
import { orders } from "./internal/cli/orders.ts"
import * as Shared from "./internal/cli/shared.ts"
import { symbols } from "./internal/cli/symbols.ts"
import { transfer } from "./internal/cli/transfer.ts"
import { watch } from "./internal/cli/watch.ts"
import * as Output from "./internal/output.ts"

/**
 * The command's name.
 *
 * @since 0.1.0
 * @category constants
 */
export const NAME: "spotkit" = Shared.NAME

/**
 * An expected failure, already reported on stderr as one line; `exitCode` 1 (venue, network, output) or 2 (usage),
 * also its `Runtime.errorExitCode`.
 *
 * @since 0.1.0
 * @category errors
 */
export const CliFailure: typeof Shared.CliFailure = Shared.CliFailure

/**
 * @since 0.1.0
 * @category errors
 */
export type CliFailure = Shared.CliFailure

/**
 * The whole command tree.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(NAME).pipe(
  Command.withDescription(
    "Trade and export account data on the spot venue. The venue comes from SPOTKIT_BASE_URL and the credentials " +
      "from SPOTKIT_API_KEY, SPOTKIT_SECRET_KEY and SPOTKIT_PASSPHRASE (public data, such as symbols and market, " +
      "needs none); " +
      "optional: SPOTKIT_LOCALE, SPOTKIT_RATE_LIMIT (on or off), SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT (endpoints that " +
      "go through a 429's pause, such as cancelOrder,cancelAll), SPOTKIT_RATE_LIMIT_ADDRESS (the address's budget " +
      "name), SPOTKIT_REDIS_URL (a rate-limit budget shared through Redis; SPOTKIT_REDIS_ON_UNAVAILABLE memory or " +
      "fail when it is lost, SPOTKIT_REDIS_TIMEOUT_MS, SPOTKIT_REDIS_PREFIX), SPOTKIT_MAX_RESPONSE_BYTES, SPOTKIT_PUSH_URL (the push endpoint, for watch), and a proxy from HTTPS_PROXY, HTTP_PROXY and NO_PROXY. Exit codes: 0 success; 1 the venue or the network failed; 2 bad " +
      "usage, configuration or input, caught before sending; 130 after Ctrl-C; 143 after SIGTERM. CSV cells a " +
      "spreadsheet would run as formulas get a leading ' (--csv-raw writes them as they are)"
  ),
  Command.withSubcommands([orders, fills, balances, symbols, market, bills, transfer, watch])
)

/**
 * Whether a value is the CLI's reported failure.
 *
 * @since 0.1.0
 * @category guards
 */
export const isCliFailure = (u: unknown): u is CliFailure => u instanceof CliFailure

// effect/cli's global flags without `--wizard`: its prompts went to stdout, which holds a command's data, and without
// a terminal it printed them and ended "Wizard cancelled." with exit code 0, having run nothing.
const builtIns = GlobalFlag.BuiltIns.filter((flag) => flag !== GlobalFlag.Wizard)

/**
 * Bad flags as one line on stderr (no help page), `--help` and `--version` as usual (`CliRuntime.layerPresenter`);
 * no `--wizard`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerPresenter: Layer.Layer<never, never, Output.Output> = Layer.merge(
  Layer.unwrap(
    Effect.map(
      Effect.service(Output.Output),
      ({ stderr }) => CliRuntime.layerPresenter({ name: NAME, write: (line) => stderr.write(`${line}\n`) })
    )
  ),
  CliConfig.layer({ builtIns })
)

/**
 * What the command needs besides the Node services: the process's stdout and stderr, the presenter of usage errors,
 * and the logger that writes log lines on stderr through them (credentials removed, one printable line each).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Output.Output> = Layer.provideMerge(
  Layer.merge(layerPresenter, Output.layerLogger),
  Output.layerProcess
)
