#!/usr/bin/env node
/**
 * `spotkit`: the command-line tool (see `Cli.ts`). Exit codes: 0 success, 1 venue/network error, 2 bad usage or
 * input, 130 after Ctrl-C, 143 after SIGTERM.
 *
 * @since 0.1.0
 */
import { setFlagsFromString } from "node:v8"

// V8 tuned for a streaming command, each flag kept for what a 1M-row export measured it to buy (BENCHMARKS.md, the
// CLI's variants of `bench:export --cli-variants`): without the first, the export's peak memory misses its goal; the
// other two keep it steadily below, with a margin.
// - keep the young generation at its initial size: by default V8 answers the export's steady allocation rate by
//   growing it to tens of megabytes, which a command holding one page at a time does not need;
// - no Maglev, V8's middle compiler tier: Effect's polymorphic code made it compile and keep much code, in its
//   compiler threads' memory; TurboFan still optimizes the hot loop. It costs CPU, which the export can spare;
// - the old generation allowed to grow to 1.3 times what a full collection left alive, instead of the up to 4 times V8
//   picks for a fast allocator: the command's live heap (most of it the libraries' code) stays flat through an
//   export, and a larger limit only let garbage, and the socket buffers it holds, pile up between collections.
// The flags must hold before the libraries load, so the command is imported only now.
setFlagsFromString("--semi-space-growth-factor=1")
setFlagsFromString("--no-maglev")
setFlagsFromString("--heap-growing-percent=30")

void import("../internal/main.ts")
