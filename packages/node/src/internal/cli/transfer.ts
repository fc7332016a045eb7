// `spotkit transfer`: a coin to another user's account.
import { Transfer } from "@spotkit/core"
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { NAME, resultFormat, withClient, writeResult } from "./shared.ts"

const accountType = (name: string, description: string) =>
  Flag.Literals(name, Transfer.AccountType.literals).pipe(Flag.withDescription(description))

/** `spotkit transfer`. */
export const transfer = Command.make(
  "transfer",
  {
    toUser: Flag.String("to-user").pipe(Flag.withDescription("The receiving user's id"), Flag.withMetavar("ID")),
    coin: Flag.Literals("coin", Transfer.Coin.literals).pipe(Flag.withDescription("The coin: USDT or BTC")),
    amount: Flag.String("amount").pipe(Flag.withDescription("The amount, up to 6 decimal places")),
    fromAccount: accountType("from-account", "The account it leaves: SPOT, SPOT_V2 or FUND"),
    toAccount: accountType("to-account", "The account it reaches: SPOT, SPOT_V2 or FUND"),
    format: resultFormat
  },
  (flags) =>
    withClient((client) =>
      client.internalTransfer({
        toUserId: flags.toUser,
        coin: flags.coin,
        amount: flags.amount,
        fromAccountType: flags.fromAccount,
        toAccountType: flags.toAccount
      }).pipe(Effect.flatMap((result) => writeResult(flags.format, result, (r) => `transferred ${r.id}`)))
    )
).pipe(
  Command.withDescription("Transfers a coin to another user's account"),
  Command.withExamples([{
    command:
      `${NAME} transfer --to-user 4001000000000002 --coin USDT --amount 25 --from-account SPOT --to-account FUND`,
    description: "25 USDT from your spot account to another user's funding account"
  }])
)
