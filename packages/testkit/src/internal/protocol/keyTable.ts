// The API keys an exchange authenticates REST with (its `Auth`), found by its engine: the exchange's push venue
// checks private handshakes against the same table, so every key REST accepts opens the private push too, an
// account's second key and the keys of accounts added later included.
import type { ApiKey, Auth } from "./auth.ts"

const byEngine = new WeakMap<object, Auth>()

/** Records the key table of the exchange around an engine. */
export const attach = (engine: object, auth: Auth): void => {
  byEngine.set(engine, auth)
}

/** The key of the exchange around an engine, if it knows that key. */
export const lookup = (engine: object, apiKey: string): ApiKey | undefined => byEngine.get(engine)?.key(apiKey)
