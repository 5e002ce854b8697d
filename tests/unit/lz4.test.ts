import { compressSync } from 'lz4-napi'
import t from 'tap'
import { compressedView, decodeLz4Block } from '../../shared/infra/read-store/lz4.ts'

// What lz4-napi writes must decode to the same bytes: short and long literal
// runs, short and long matches, matches overlapping their own output, none at all.
const texts: Record<string, string> = {
  empty: '',
  'one byte': 'a',
  'a run (overlapping matches)': 'a'.repeat(1000),
  'a repeated pattern': 'abc'.repeat(700),
  'non-ASCII': 'Arrivé au centre de tri n°7 — Zürich, 東京 '.repeat(200),
  'no repetition': Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919 + (i >> 3)) % 251)).toString('latin1'),
  'an order rendering': JSON.stringify({
    object: 'order',
    fulfillments: Array.from({ length: 2 }, (_, f) => ({
      id: f,
      trackers: [
        { events: Array.from({ length: 5 }, (_, e) => ({ id: e, message: 'In transit', address: { city: 'Lyon' } })) },
      ],
    })),
  }),
}

for (const [name, text] of Object.entries(texts)) {
  t.test(name, async (t) => {
    const stored = compressSync(text)
    const expected = Buffer.from(text)
    const out = Buffer.alloc(expected.length + 16, 0xee)
    t.equal(decodeLz4Block(stored, 4, out, 8), 8 + expected.length, 'ends where the text ends')
    t.same(out.subarray(8, 8 + expected.length), expected)
    t.same(
      [...out.subarray(0, 8), ...out.subarray(8 + expected.length)],
      Array(16).fill(0xee),
      'nothing written around it',
    )
    const view = compressedView(stored)
    t.equal(view.byteLength, expected.length, 'the size lz4-napi puts in front')
  })
}

t.test('a damaged block is an error, not wrong bytes', async (t) => {
  const stored = compressSync('abc'.repeat(700))
  const damaged = Buffer.from(stored)
  damaged.writeUInt32LE(10, 0) // claims fewer bytes than it holds
  t.throws(() => compressedView(damaged).copyTo(Buffer.alloc(4096), 0), /corrupt LZ4 view/)
  const badOffset = Buffer.from([0x1f, 0x61, 0xff, 0xff, 0x00]) // one literal, then a match 65535 bytes back
  t.throws(() => decodeLz4Block(badOffset, 0, Buffer.alloc(64), 0), /before the output/)
})
