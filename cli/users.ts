import { ShiplogError } from '../shared/domain/errors.ts'
import type { UserState } from '../shared/domain/users/user.ts'
import { collections } from '../shared/infra/read-store/collections.ts'
import type { Runtime } from '../shared/infra/runtime.ts'

/** The password a command reads from standard input: its first line, without the line's end. */
export async function passwordFromStdin(input: NodeJS.ReadableStream = process.stdin): Promise<string> {
  let text = ''
  for await (const chunk of input) text += chunk.toString()
  const password = text.split(/\r?\n/)[0] ?? ''
  if (!password) throw new ShiplogError('SHIPLOG_ERR_VALIDATION', 'No password on standard input (--password-stdin)')
  return password
}

/** An account's console users, oldest first, as JSON lines: never a password hash. */
export async function listUsers(rt: Pick<Runtime, 'readStore'>, accountId: number, out: NodeJS.WritableStream) {
  const users: UserState[] = []
  for (let endingBefore: number | undefined; ; ) {
    const page = await rt.readStore.find<UserState>(collections.users.name, { accountId, endingBefore, limit: 500 })
    users.push(...page.docs.map((d) => d.doc))
    if (!page.hasMore) break
    endingBefore = page.docs.at(-1)!.id
  }
  for (const u of users.filter((u) => !u.deleted).reverse())
    out.write(
      `${JSON.stringify({ id: u.user_id, account_id: u.account_id, email: u.email, role: u.role, created_at: new Date(u.created_at * 1000).toISOString() })}\n`,
    )
}
