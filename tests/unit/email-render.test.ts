import t from 'tap'
import { renderEmail } from '../../reactions/emails/render.ts'
import { wordsOf } from '../../shared/infra/words/catalogue.ts'
import { notificationSlugs } from '../../shared/domain/notifications/types.ts'
import { notificationLanguages } from '../../shared/domain/notifications/languages.ts'

const facts = {
  slug: 'delivered',
  language: 'en',
  first_name: 'Zoë <script>',
  order_number: 'A&B-1',
  carrier: 'Colissimo',
  tracking_number: '6A123',
  tracking_link: 'https://www.laposte.fr/outils/suivre-vos-envois?code=6A123&x=1',
  expected_delivery_date: '2026-11-25',
  brand: { name: 'Atelier & Co', logo_url: null, color: '#1a56db', text_color: '#ffffff' },
}

t.test('every value is escaped in the HTML and plain in the text', async (t) => {
  const email = renderEmail(facts)
  t.equal(email.subject, 'Your order A&B-1 has been delivered')
  t.match(email.text, 'Hello Zoë <script>,')
  t.match(email.html, 'Hello Zoë &lt;script&gt;,')
  t.notMatch(email.html, '<script>')
  t.match(email.html, 'A&amp;B-1')
  t.match(email.html, 'href="https://www.laposte.fr/outils/suivre-vos-envois?code&#x3D;6A123&amp;x&#x3D;1"')
  t.match(email.text, 'Expected delivery: Wednesday, November 25, 2026')
})

t.test('each language in its own words and dates; English for a language without templates', async (t) => {
  const fr = renderEmail({ ...facts, language: 'fr' })
  t.equal(fr.subject, 'Votre commande A&B-1 a été livrée')
  t.match(fr.text, 'Bonjour Zoë <script>,')
  t.match(fr.text, 'mercredi 25 novembre 2026')
  const de = renderEmail({ ...facts, language: 'de-AT' })
  t.equal(de.subject, 'Ihre Bestellung A&B-1 wurde zugestellt')
  t.match(de.text, 'Mittwoch, 25. November 2026')
  t.equal(renderEmail({ ...facts, language: 'es' }).subject, 'Tu pedido A&B-1 ha sido entregado')
  t.equal(renderEmail({ ...facts, language: 'it' }).subject, 'Il tuo ordine A&B-1 è stato consegnato')
  t.equal(renderEmail({ ...facts, language: 'nl' }).subject, 'Je bestelling A&B-1 is bezorgd')
  t.equal(renderEmail({ ...facts, language: 'pt' }).subject, 'Your order A&B-1 has been delivered')
})

t.test('every type has its words in both languages; no name greets plainly', async (t) => {
  t.equal(notificationSlugs.length, 9)
  for (const slug of notificationSlugs) {
    for (const language of notificationLanguages) {
      const email = renderEmail({ ...facts, slug, language, first_name: null, carrier: null, tracking_link: null })
      t.ok(email.subject.includes('A&B-1'), `${slug} ${language} names the order`)
      t.match(email.text, /^Atelier & Co\n\n(Hello|Bonjour|Hallo|Hola|Ciao)[,:]/, 'the brand first, then the greeting')
    }
  }
})

t.test('the brand: its name or logo at the top, its colour on the button with a text colour that reads', async (t) => {
  const named = renderEmail(facts)
  t.match(named.html, '<strong style="font-size: 20px;">Atelier &amp; Co</strong>')
  t.match(named.html, 'background: #1a56db; color: #ffffff;')
  const logo = renderEmail({
    ...facts,
    brand: { name: 'Atelier', logo_url: 'https://cdn.shop.example/logo.png', color: '#ffd700', text_color: '#000000' },
  })
  t.match(logo.html, '<img src="https://cdn.shop.example/logo.png" alt="Atelier"')
  t.match(logo.html, 'background: #ffd700; color: #000000;')
})

/** Every phrase of a catalogue, by its key (`types.shipped.subject.`). */
const phrases = (value: unknown, prefix = ''): [string, string][] =>
  typeof value === 'object' && value !== null
    ? Object.entries(value).flatMap(([k, v]) => phrases(v, `${prefix}${k}.`))
    : [[prefix, String(value)]]
/** The placeholders of an ICU message: `{order_number}`, `{count, plural, …}`. */
const placeholders = (message: string) => [...message.matchAll(/\{(\w+)/g)].map((m) => m[1]).sort()

t.test('one catalogue per language: the same phrases, each with the same placeholders', async (t) => {
  const english = new Map(phrases(wordsOf('en')))
  t.ok([...english.keys()].filter((k) => k.startsWith('page.')).length > 40)
  for (const language of notificationLanguages) {
    const theirs = new Map(phrases(wordsOf(language)))
    t.same([...theirs.keys()].sort(), [...english.keys()].sort(), `${language}: every key, none more`)
    const differing = [...english].filter(
      ([key, message]) => !t.same(placeholders(theirs.get(key) ?? ''), placeholders(message)) && key,
    )
    t.same(differing, [], `${language}: every phrase with the placeholders of the English one`)
  }
})

t.test('French typography: a no-break space before a colon, a semicolon, ! and ?', async (t) => {
  const spaced = phrases(wordsOf('fr')).filter(([, message]) => / [:;!?]/.test(message))
  t.same(spaced, [], 'none with a plain space')
  t.match(renderEmail({ ...facts, language: 'fr' }).text, `Commande\u00a0: A&B-1`)
})
