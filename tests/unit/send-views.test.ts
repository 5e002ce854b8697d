import { EventEmitter } from 'node:events'
import type { FastifyReply } from 'fastify'
import t from 'tap'
import { joinViews, sendViewList } from '../../query-api/shared/send-views.ts'
import { viewBytesOf } from '../../shared/infra/read-store/port.ts'

/** Just what sendViewList uses of a reply: the raw response's 'close', the content type and send. */
function fakeReply() {
  const reply = {
    raw: new EventEmitter(),
    sent: Buffer.alloc(0) as Buffer,
    type: () => reply,
    send(body: Buffer) {
      reply.sent = body
      return reply
    },
  }
  return reply
}
const send = (reply: ReturnType<typeof fakeReply>, items: string[], hasMore: boolean) =>
  sendViewList(
    reply as unknown as FastifyReply,
    items.map((i) => viewBytesOf(Buffer.from(i))),
    hasMore,
  )

t.test('answers are whole lists, in buffers reused only once an answer is sent', async (t) => {
  const a = fakeReply()
  send(a, ['{"n":1}', '{"city":"Zürich"}'], true)
  t.same(JSON.parse(a.sent.toString()), { object: 'list', has_more: true, data: [{ n: 1 }, { city: 'Zürich' }] })
  const aWhileSending = Buffer.from(a.sent)

  const b = fakeReply()
  send(b, ['{"n":2}'], false)
  t.same(a.sent, aWhileSending, 'an answer still being sent is left alone')
  t.not(b.sent.buffer, a.sent.buffer)

  a.raw.emit('close')
  const c = fakeReply()
  send(c, [], false)
  t.equal(c.sent.buffer, a.sent.buffer, 'its buffer serves the next answer once it has gone')
  t.same(JSON.parse(c.sent.toString()), { object: 'list', has_more: false, data: [] })
})

t.test('joined views: commas between them, empty ones (a chunk without results) left out', async (t) => {
  const views = ['{"a":1}', '', '{"b":"é"}', ''].map((v) => viewBytesOf(Buffer.from(v)))
  t.equal(joinViews(views).toString(), '{"a":1},{"b":"é"}')
  t.equal(joinViews([]).length, 0)
  t.equal(joinViews(views.slice(1, 2)).length, 0, 'only empty views join to nothing')
})
