import { connect, createServer, type Server, type Socket } from 'node:net'
import { freePort } from './process.ts'

/**
 * A TCP relay on loopback in front of a real server (PostgreSQL): stopping it
 * cuts every connection and refuses new ones, as a database that goes away
 * does, without touching the server the rest of the suite uses.
 */
export async function tcpProxy(target: { host: string; port: number }) {
  const port = await freePort()
  const sockets = new Set<Socket>()
  let server: Server | undefined
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
  }
  const start = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(target.port, target.host)
        track(client)
        track(upstream)
        client.on('close', () => upstream.destroy())
        upstream.on('close', () => client.destroy())
        client.pipe(upstream).pipe(client)
      })
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => resolve())
    })
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      if (!server) return resolve()
      server.close(() => resolve())
      server = undefined
    })
  await start()
  return { port, start, stop }
}
