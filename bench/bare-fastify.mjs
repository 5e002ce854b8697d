// The floor of the one-order benchmark: a bare fastify process that parses each JSON body and answers 201, nothing else.
import Fastify from 'fastify'

const app = Fastify({ bodyLimit: 10 * 1024 * 1024 })
app.post('/v2/orders', async (request, reply) =>
  reply.code(201).header('x-shiplog-position', '0').send({ object: 'order', items: request.body.line_items.length }),
)
await app.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`${app.server.address().port}\n`)
