// The credentials each `SpotClient` of `TestExchange.layerSpotClient` signs with, kept by the client itself, so that
// `PushVenue.layerSpotPush` over it signs its session in as the same user by default and refuses another: the session
// backfills through that client, and two users would mix (one's pushes, the other's REST answers). A client built
// some other way is not known here.
import type { Signer } from "@spotkit/core"

const byClient = new WeakMap<object, Signer.Credentials>()

/** Records the credentials a preset client signs with. */
export const register = (client: object, credentials: Signer.Credentials): void => {
  byClient.set(client, credentials)
}

/** The credentials a preset client signs with, if the client is one. */
export const credentialsOf = (client: object): Signer.Credentials | undefined => byClient.get(client)
