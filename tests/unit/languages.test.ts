import t from 'tap'
import { type EmailFacts, renderEmail } from '../../reactions/emails/render.ts'
import { hasNotifications, notificationLanguageOf } from '../../shared/domain/notifications/languages.ts'

t.test('a language has notifications when it, or its base language, has templates', async (t) => {
  t.ok(hasNotifications('fr'))
  t.ok(hasNotifications('fr-CA'))
  t.notOk(hasNotifications('xx'))
  t.ok(hasNotifications('de-AT'))
  t.notOk(hasNotifications('pt'))
  t.equal(notificationLanguageOf('fr-CA'), 'fr')
  t.equal(notificationLanguageOf('nl-BE'), 'nl')
  t.equal(notificationLanguageOf('pt'), 'en', 'a customer language without templates reads English')
})

t.test('a regional variant is written in its base language', async (t) => {
  const facts: EmailFacts = {
    slug: 'delivered',
    language: 'fr-CA',
    first_name: null,
    order_number: 'A-1',
    carrier: null,
    tracking_number: 'TN',
    tracking_link: null,
    expected_delivery_date: null,
    brand: { name: 'Shop', logo_url: null, color: '#1a56db', text_color: '#ffffff' },
  }
  t.equal(renderEmail(facts).subject, renderEmail({ ...facts, language: 'fr' }).subject)
  t.not(renderEmail(facts).subject, renderEmail({ ...facts, language: 'en' }).subject)
})
