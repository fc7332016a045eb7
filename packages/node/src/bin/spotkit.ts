#!/usr/bin/env node
/**
 * `spotkit`: the command-line tool (see `Cli.ts`). Exit codes: 0 success, 1 venue/network error, 2 bad usage or
 * input, 130 after Ctrl-C, 143 after SIGTERM.
 *
 * @since 0.1.0
 */
import { setFlagsFromString } from "node:v8"

// Keep V8's young generation at its initial size. A bill export allocates short-lived objects page after page, and
// by default V8 answers a steady allocation rate by growing the young generation to tens of megabytes, which a
// streaming command does not need: on a 1M-row export peak RSS drops from about 300 MB to about 170 MB at about the
// same speed (BENCHMARKS.md). The flag must hold before the libraries load, so the command is imported only now.
setFlagsFromString("--semi-space-growth-factor=1")

void import("../internal/main.ts")
