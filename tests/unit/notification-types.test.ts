import t from 'tap'
import { buildNotification } from '../../shared/domain/notifications/build.ts'
import { notificationTypeOf, notificationTypes } from '../../shared/domain/notifications/types.ts'
import type { Notification } from '../../shared/domain/events/resources.ts'
import { Expansion } from '../../projectors/resources/expansion.ts'
import { renderNotification } from '../../projectors/resources/render.ts'
import { countingIds } from '../support/decider.ts'

/*
 * A notification refers to its type in the catalogue: its event and its
 * order's document hold the type's id and slug, and its name, category and
 * description are read from the catalogue when it is rendered. Notifications
 * built by an earlier version hold the whole type and render the same.
 */

const NOW = 1_800_000_000
const expanded = Expansion.full(['notification_type'])

t.test('a built notification holds its type as a reference: id and slug', async (t) => {
  const n = buildNotification(
    'shipped',
    { email: 'jo@example.com', phone: null, language_code: 'en' },
    NOW,
    countingIds(),
  )
  t.same(n.notification_type, { id: 2, slug: 'shipped' })
})

t.test(
  'a notification renders its type as the catalogue has it, whether it holds a reference or the whole type',
  async (t) => {
    const notification = (type: Notification['notification_type']): Notification => ({
      id: 10,
      created_at: NOW,
      language_code: 'en',
      notification_type: type,
      notification_payloads: [],
    })
    const byReference = renderNotification(notification({ id: 7, slug: 'delivered' }), expanded, '')
    t.same(byReference.notification_type, { object: 'notification_type', ...notificationTypes.delivered })
    const stored = renderNotification(notification({ ...notificationTypes.delivered }), expanded, '')
    t.same(stored, byReference)
    t.same(renderNotification(notification({ id: 7, slug: 'delivered' }), Expansion.full([]), '').notification_type, {
      object: 'notification_type',
      id: 7,
    })
  },
)

t.test('a type the catalogue does not list reads as the notification stored it', async (t) => {
  const whole = { id: 99, slug: 'retired', name: 'Retired', category: 'other', description: 'No longer sent.' }
  t.same(notificationTypeOf(whole), whole)
  t.same(notificationTypeOf({ id: 99, slug: 'retired' }), {
    id: 99,
    slug: 'retired',
    name: 'retired',
    category: 'other',
    description: '',
  })
})
