// The body of the `spotkit` command: runs it on the Node runtime and maps how it ended to the exit code (0 success,
// 1 venue/network error, 2 bad usage or input, 130 after Ctrl-C (SIGINT), 143 after SIGTERM: 128 + the signal, as
// shells report it). Loaded by `bin/spotkit.ts` once V8 is configured.
import * as Cli from "../Cli.ts"
import * as CliRuntime from "../CliRuntime.ts"

CliRuntime.runMain(Cli.command, {
  // `../../package.json` from both `src/internal` and `dist/internal`.
  version: CliRuntime.packageVersion(new URL("../../package.json", import.meta.url)),
  layer: Cli.layer
})
