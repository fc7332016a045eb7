/**
 * SafeText (issue #17): the `Scrubber` removes every credential in every form a venue could echo it in — raw,
 * JSON-escaped (with `\/`), `\u`-escaped in either case, URL-encoded (either case, any mix, `+` for a space, twice),
 * HTML-escaped (named, decimal and hexadecimal references, as a gateway's error page quotes a header), base64
 * and base64url at any alignment inside a longer base64 text — a passphrase too short for that where it is labelled,
 * and leaves other text exact; `printable` makes any
 * text one harmless line of bounded length. The encoded forms are built here with the platform's own encoders, not
 * with the module's.
 */
import { assert, describe, it } from "@effect/vitest"
import { Redacted } from "effect"
import { Buffer } from "node:buffer"
import { SafeText } from "../src/index.ts"

const secrets = {
  apiKey: "key-5c3e9a17d2b8",
  secretKey: "secret/with+plus=9f8e7d6c",
  passphrase: "pass \"phrase\\ 42 é"
}
const scrubber = SafeText.Scrubber.of({
  apiKey: Redacted.make(secrets.apiKey),
  secretKey: Redacted.make(secrets.secretKey),
  passphrase: Redacted.make(secrets.passphrase)
})

const hex = (value: number, width: number) => value.toString(16).padStart(width, "0")

/** HTML escaping as template engines write it: Python's `html.escape` (named, `&#x27;`), Go's html/template (`&#43;`). */
const htmlEscaped = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#x27;" })[c]!)
const goEscaped = (text: string): string =>
  text.replace(/[&<>"'+=]/g, (c) => c === "&" ? "&amp;" : `&#${c.charCodeAt(0)};`)

/** Every form of a secret, by name. */
const formsOf = (secret: string): ReadonlyArray<readonly [string, string]> => {
  const json = JSON.stringify(secret).slice(1, -1)
  const units = Array.from({ length: secret.length }, (_, i) => secret.charCodeAt(i))
  const bytes = [...Buffer.from(secret, "utf8")]
  return [
    ["raw", secret],
    ["JSON-escaped", json],
    ["JSON-escaped with \\/", json.replaceAll("/", "\\/")],
    // A JSON text quoted as a string in another: a gateway's answer quoting the request it forwarded.
    ["JSON-escaped twice", JSON.stringify(json).slice(1, -1)],
    ["JSON-escaped twice, with \\/", JSON.stringify(json.replaceAll("/", "\\/")).slice(1, -1)],
    ["\\u-escaped, then JSON-escaped", JSON.stringify(units.map((unit) => `\\u${hex(unit, 4)}`).join("")).slice(1, -1)],
    ["\\u-escaped", units.map((unit) => `\\u${hex(unit, 4)}`).join("")],
    ["\\u-escaped, upper case", units.map((unit) => `\\u${hex(unit, 4).toUpperCase()}`).join("")],
    ["URL-encoded", encodeURIComponent(secret)],
    ["URL-encoded, every byte, lower case", bytes.map((byte) => `%${hex(byte, 2)}`).join("")],
    [
      "URL-encoded, every other character",
      Array.from(secret, (c, i) => i % 2 === 0 ? encodeURIComponent(c) : c).join("")
    ],
    ["form-encoded", encodeURIComponent(secret).replaceAll("%20", "+")],
    ["URL-encoded twice", encodeURIComponent(encodeURIComponent(secret))],
    ["HTML-escaped, named", htmlEscaped(secret)],
    ["HTML-escaped as Go's html/template", goEscaped(secret)],
    ["HTML references, every character, decimal", Array.from(secret, (c) => `&#${c.codePointAt(0)};`).join("")],
    // HTML reads a numeric reference without its `;` too.
    [
      "HTML references, every character, decimal, no semicolons",
      Array.from(secret, (c) => `&#${c.codePointAt(0)}`).join("")
    ],
    [
      "HTML references, every character, hexadecimal with a leading zero",
      Array.from(secret, (c) => `&#X0${c.codePointAt(0)!.toString(16).toUpperCase()};`).join("")
    ],
    ["base64", Buffer.from(secret).toString("base64")],
    ["base64url", Buffer.from(secret).toString("base64url")],
    ["base64 inside a longer text, 1 byte before", Buffer.from(`x${secret}yz`).toString("base64")],
    ["base64 inside a longer text, 2 bytes before", Buffer.from(`xy${secret}z`).toString("base64")]
  ]
}

describe("Scrubber", () => {
  it("removes every credential in every form, inside other text", () => {
    for (const [name, secret] of Object.entries(secrets)) {
      for (const [form, text] of formsOf(secret)) {
        const scrubbed = scrubber.scrub(`before ${text} after`)
        assert.include(scrubbed, SafeText.REDACTED, `${name}, ${form}`)
        assert.notInclude(scrubbed, text, `${name}, ${form}`)
        assert.isTrue(scrubbed.startsWith("before "), `${name}, ${form}: ${scrubbed}`)
      }
    }
  })

  it("removes a request's signature in its forms too", () => {
    const signature = "k3Jd+9/aQ2xZ0pLmNvB7cT4eR1uY8wSgHfIoKjA5=="
    for (
      const text of [
        signature,
        encodeURIComponent(signature),
        encodeURIComponent(encodeURIComponent(signature)),
        goEscaped(signature).replaceAll("/", "&#x2F;"),
        JSON.stringify(signature).slice(1, -1).replaceAll("/", "\\/")
      ]
    ) {
      assert.strictEqual(scrubber.scrub(`sig ${text}`, signature), `sig ${SafeText.REDACTED}`, text)
    }
    assert.strictEqual(scrubber.scrub(`sig ${signature}`), `sig ${signature}`, "another request's text")
  })

  it("leaves text without a credential exact, and a short secret alone", () => {
    const data = "orderId 1001000000000000001 % \\u0041 + base64 a2V5LTVj %2F"
    assert.strictEqual(scrubber.scrub(data), data)
    const short = new SafeText.Scrubber(["abc"])
    assert.strictEqual(short.scrub("abc abcd"), "abc abcd")
  })

  it("a passphrase too short to be searched for everywhere is removed where it is labelled, in its forms", () => {
    const short = SafeText.Scrubber.of({
      apiKey: Redacted.make(secrets.apiKey),
      secretKey: Redacted.make(secrets.secretKey),
      passphrase: Redacted.make("a/1")
    })
    for (
      const [said, scrubbed] of [
        ["ACCESS-PASSPHRASE: a/1", "ACCESS-PASSPHRASE: <redacted>"],
        [`{"access-passphrase":"a/1"}`, `{"access-passphrase":"<redacted>"}`],
        [`{"msg":"{\\"passphrase\\":\\"a\\/1\\"}"}`, `{"msg":"{\\"passphrase\\":\\"<redacted>\\"}"}`],
        ["access_passphrase=a%2F1&x=1", "access_passphrase=<redacted>&x=1"],
        ["passphrase%3Da%2f1", "passphrase%3D<redacted>"],
        ["wrong Passphrase 'a/1' for key", "wrong Passphrase '<redacted>' for key"],
        ["headers: [ACCESS-PASSPHRASE: \\u0061/1]", "headers: [ACCESS-PASSPHRASE: <redacted>]"],
        // Quoted by an HTML error page, or encoded twice.
        ["<p>passphrase&#61;a&#x2F;1</p>", "<p>passphrase&#61;<redacted></p>"],
        ["&quot;passphrase&quot;: &quot;a&#47;1&quot;", "&quot;passphrase&quot;: &quot;<redacted>&quot;"],
        ["passphrase%253Da%252F1", "passphrase%253D<redacted>"],
        // The venue's own messages call it the password.
        ["apikey/password is incorrect (password: a/1)", "apikey/password is incorrect (password: <redacted>)"]
      ] as const
    ) assert.strictEqual(short.scrub(said), scrubbed, said)
    // Elsewhere it is ordinary text: not labelled, or part of a longer token.
    for (
      const text of [
        "price a/1",
        "a/1 passphrase",
        "passphrase a/12",
        "passphrasea/1",
        "passphrase: xa/1",
        "password a/12"
      ]
    ) {
      assert.strictEqual(short.scrub(text), text)
    }
    // The venue's own words about the passphrase stay whole whatever it is.
    const can = new SafeText.Scrubber([], [{ label: "passphrase", secret: "can" }])
    assert.strictEqual(can.scrub("ACCESS_PASSPHRASE cannot be empty"), "ACCESS_PASSPHRASE cannot be empty")
    assert.strictEqual(can.scrub("passphrase: can"), "passphrase: <redacted>")
  })

  it("a text cut short inside a secret (a close reason of 123 bytes) keeps no start of it", () => {
    const passphrase = "Correct-Horse-Battery-Staple-42"
    const cut = SafeText.Scrubber.of({
      apiKey: Redacted.make(secrets.apiKey),
      secretKey: Redacted.make(secrets.secretKey),
      passphrase: Redacted.make(passphrase)
    })
    const said = "rejected handshake with ACCESS-PASSPHRASE "
    const all = { apiKey: secrets.apiKey, secretKey: secrets.secretKey, passphrase }
    for (const [name, secret] of Object.entries(all)) {
      for (const [form, text] of formsOf(secret).filter(([form]) => !form.startsWith("base64"))) {
        // Every cut from six characters of the secret on, as the text's end or before an ellipsis.
        for (let end = 6; end < Array.from(secret).length; end++) {
          const start = form === "raw" ? Array.from(secret).slice(0, end).join("") : formsOf(
            Array.from(secret).slice(0, end).join("")
          ).find(([f]) => f === form)![1]
          if (!text.startsWith(start)) continue
          for (const tail of ["", "...", "\u2026", " ", "\u2026[truncated]", "... (300 more bytes)"]) {
            const scrubbed = cut.scrub(`${said}${start}${tail}`)
            assert.strictEqual(scrubbed, `${said}${SafeText.REDACTED}${tail}`, `${name}, ${form}, ${end}${tail}`)
          }
        }
      }
    }
    // Cut inside an escape: the secret's start goes, the escape's fragment may stay.
    for (const fragment of ["%2", "%25", "%252", "\\u00", "&#4", "&#x2"]) {
      assert.strictEqual(cut.scrub(`${said}secret${fragment}`), `${said}${SafeText.REDACTED}${fragment}`, fragment)
    }
    // A request's signature cut short, too.
    const signature = "k3Jd+9/aQ2xZ0pLmNvB7cT4eR1uY8wSgHfIoKjA5=="
    assert.strictEqual(cut.scrub(`sign ${signature.slice(0, 20)}`, signature), `sign ${SafeText.REDACTED}`)
    // Not at the end, or fewer than six characters: ordinary text (a host of the key's first word, say).
    for (const text of [`${said}Corre`, `${said}Correct-Horse and more`, `${said}Correct.`, "https://venue.key-5"]) {
      assert.strictEqual(cut.scrub(text), text)
    }
  })

  it("an excerpt is scrubbed before it is cut: no fragment of a secret at the cut", () => {
    // The passphrase \u-escaped (108 characters) and URL-encoded twice, cut anywhere along it.
    const forms = new Map(formsOf(secrets.passphrase))
    for (const form of ["\\u-escaped", "URL-encoded twice"]) {
      const text = `${"a".repeat(20)}${forms.get(form)!}${"b".repeat(100)}`
      for (let length = 1; length < text.length; length++) {
        assert.strictEqual(scrubber.excerpt(text, length), scrubber.scrub(text).slice(0, length), `${form}, ${length}`)
      }
    }
  })
})

describe("Scrubber.scrubData", () => {
  const of = (passphrase: string, apiKey = "key5c3e9a17", secretKey = "sk-9f8e7d6c5b4a") =>
    SafeText.Scrubber.of({
      apiKey: Redacted.make(apiKey),
      secretKey: Redacted.make(secretKey),
      passphrase: Redacted.make(passphrase)
    })

  it("a passphrase of digits leaves amounts, ids and times exact; where labelled it is removed", () => {
    for (const passphrase of ["1000", "0000", "13371337", "918273", "12.5"]) {
      const data = of(passphrase)
      for (
        const row of [
          "USDT,2,1000000,0,1000000",
          "2005000000000304,2,USDT,deposit,50000,50068.90025509,0,1795926754832",
          "99991337133,1203918273,602876318261234338,12345.6789,1000,0000,12.5",
          `{"orderId":"1005000000000080","size":"${passphrase}"}`
        ]
      ) {
        assert.strictEqual(data.scrubData(row), row, `${passphrase}: ${row}`)
        // As a diagnostic it is searched for everywhere (the library's messages, stderr).
        if (row.includes(passphrase) && passphrase.length >= SafeText.MIN_SECRET_LENGTH) {
          assert.notStrictEqual(data.scrub(row), row, `${passphrase}: ${row}`)
        }
      }
      assert.strictEqual(
        data.scrubData(`a venue's message: passphrase=${passphrase}, "password":"${passphrase}"`),
        `a venue's message: passphrase=<redacted>, "password":"<redacted>"`
      )
    }
  })

  it("another secret is removed as a whole token, in its forms, not inside a longer run of letters and digits", () => {
    const data = of("word-pass", "ab12cd34")
    assert.strictEqual(data.scrubData("key ab12cd34, again:ab12cd34"), "key <redacted>, again:<redacted>")
    assert.strictEqual(data.scrubData("%61%62%31%32cd34 and ab12cd%33%34"), "<redacted> and <redacted>")
    assert.strictEqual(data.scrubData("sk00ab12cd34zz,xab12cd34"), "sk00ab12cd34zz,xab12cd34", "a generated id")
    assert.strictEqual(data.scrubData("echo word-pass."), "echo <redacted>.")
    assert.include(data.scrubData(Buffer.from("the key ab12cd34!").toString("base64")), "<redacted>", "base64")
    // No cut: data is not cut short.
    assert.strictEqual(data.scrubData("ends with sk-9f8e7d"), "ends with sk-9f8e7d")
  })

  it("without credentials (before they are known) nothing is changed", () => {
    const data = new SafeText.Scrubber([])
    assert.strictEqual(data.scrubData("1000,ab12"), "1000,ab12")
  })
})

describe("printable", () => {
  it("escapes controls, bidi controls, separators and lone surrogates; keeps other characters", () => {
    const text = "a\nb\r\u001b[2K\u0007\u009b\u202eexe\u2066\u2028\u0000 \ud83d\ude00 \ud800 € é"
    assert.strictEqual(
      SafeText.printable(text),
      "a\\nb\\r\\u001b[2K\\u0007\\u009b\\u202eexe\\u2066\\u2028\\u0000 \ud83d\ude00 \\ud800 € é"
    )
  })

  it("cuts a long text and says how long it was; answers a safe short text as it is", () => {
    const long = "x".repeat(100 * 1024 * 1024)
    assert.strictEqual(SafeText.printable(long, 10), `${"x".repeat(10)}… (104857600 characters)`)
    const safe = "bad request (code 40020)"
    assert.strictEqual(SafeText.printable(safe), safe)
    assert.strictEqual(SafeText.printable("\u001b".repeat(1000), 240), `${"\\u001b".repeat(40)}… (1000 characters)`)
  })
})
