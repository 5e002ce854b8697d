import t from 'tap'
import { decideAccount, evolveAccountState } from '../../shared/domain/accounts/account.ts'
import { specOf } from '../support/decider.ts'

const given = specOf({ decide: decideAccount, evolve: evolveAccountState })
const data = {
  account_id: 3,
  name: 'Acme',
  language_code: 'en',
  private_key: { id: 'key_a', hash: 'aa' },
  public_key: { id: 'key_b', hash: 'bb' },
  at: 100,
}

t.test('an account is created with the hashes it is given', async (t) => {
  given([])
    .when({ type: 'CreateAccount', data })
    .thenEvents(t, [{ type: 'AccountCreated', data }])
})

t.test('an account is created only once', async (t) => {
  given([{ type: 'AccountCreated', data }])
    .when({ type: 'CreateAccount', data })
    .thenThrows(t, { code: 'SHIPLOG_ERR_CONFLICT' })
})
