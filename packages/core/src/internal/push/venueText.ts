// What the push path quotes from the venue, made safe to show, as the HTTP pipeline does for its answers: a venue's
// error frame, a close reason, an error of the socket may echo what the client sent in its handshake (the API key,
// the passphrase, the signature) or hold terminal escapes. Every such text is scrubbed of the credentials, of the
// handshake signatures sent lately, and of the push URL's user information and query, before it reaches an error, an
// event or a log line; `line` also makes it one printable line of bounded length.
import { Result } from "effect"
import { printable, Scrubber } from "../../SafeText.ts"
import type { Labelled } from "../../SafeText.ts"

/** Handshake signatures kept for scrubbing: the venue echoes the one of the connection it answers (or a recent one). */
const RECENT_SIGNATURES = 8

// The user information (`user:password@`, and the password alone) and the query of a URL (and each value in it), as
// given and decoded. A user name alone is not searched for: a short one would match everywhere.
const urlSecrets = (url: string): Array<string> => {
  const found: Array<string> = []
  const userinfo = /^[^/?#]*\/\/([^/?#]*)@/.exec(url)?.[1]
  if (userinfo !== undefined) {
    found.push(userinfo)
    if (userinfo.includes(":")) found.push(userinfo.slice(userinfo.indexOf(":") + 1))
  }
  const query = /\?([^#]*)/.exec(url)?.[1]
  if (query !== undefined) {
    found.push(query)
    for (const pair of query.split("&")) found.push(pair.slice(pair.indexOf("=") + 1))
  }
  const decoded = found.map((part) => Result.getOrElse(Result.try(() => decodeURIComponent(part)), () => part))
  return [...found, ...decoded]
}

/**
 * A URL named without what may be secret in it: its user information, query and fragment dropped
 * (`wss://user:pw@host/path?token=x` is `wss://host/path`), also when it is no well-formed URL (`wss:/user:pw@host`,
 * ` wss://user:pw@host`, `user:pw@host`): the user information is whatever comes before the last `@` between the
 * scheme's slashes (if any) and the path.
 */
export const urlName = (url: string): string => {
  const bare = url.replace(/[?#][^]*$/, "")
  // Spaces before the scheme are kept (a reason the URL was refused), and passed over.
  const prefix = /^\s*([a-zA-Z][a-zA-Z0-9+.-]*:\/+)?/.exec(bare)?.[0] ?? ""
  const rest = bare.slice(prefix.length)
  const end = rest.search(/[/]|$/)
  const at = rest.lastIndexOf("@", end)
  return at === -1 || at >= end ? bare : prefix + rest.slice(at + 1)
}

export class VenueText {
  private readonly secrets: ReadonlyArray<string>
  private readonly labelled: ReadonlyArray<Labelled>
  private readonly signatures: Array<string> = []
  private scrubber: Scrubber | undefined = undefined

  constructor(
    options: {
      readonly secrets: ReadonlyArray<string>
      /** Secrets removed where labelled when too short to be searched for everywhere (the passphrase). */
      readonly labelled?: ReadonlyArray<Labelled> | undefined
      readonly url: string
    }
  ) {
    this.secrets = [...options.secrets, ...urlSecrets(options.url)]
    this.labelled = options.labelled ?? []
  }

  /** A handshake signature just sent: scrubbed from now on (with the few sent before it). */
  signed(signature: string): void {
    this.signatures.push(signature)
    if (this.signatures.length > RECENT_SIGNATURES) this.signatures.shift()
    this.scrubber = undefined
  }

  /** The text without any credential, recent signature or secret of the URL, in any encoding (`SafeText.Scrubber`). */
  scrub(text: string): string {
    this.scrubber ??= new Scrubber([...this.secrets, ...this.signatures], this.labelled)
    return this.scrubber.scrub(text)
  }

  /** The text scrubbed, as one printable line cut after `maxLength` characters (`SafeText.printable`). */
  line(text: string, maxLength?: number): string {
    return printable(this.scrub(text), maxLength)
  }
}
