import type { FastifyReply } from 'fastify'

/** A page of HTML and the Content-Security-Policy it is served with. */
export interface RenderedPage {
  html: string
  policy: string
}

/**
 * An HTML page for people (the tracking site, the console), with the headers
 * each carries: never cached, sniffed or framed, except by a page of its own
 * site when `framedBy: 'self'` (the console's preview of the tracking page).
 */
export function sendPage(
  reply: FastifyReply,
  status: number,
  page: RenderedPage,
  { framedBy = 'none' }: { framedBy?: 'none' | 'self' } = {},
) {
  const policy =
    framedBy === 'self' ? page.policy.replace("frame-ancestors 'none'", "frame-ancestors 'self'") : page.policy
  return reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', policy)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', framedBy === 'self' ? 'SAMEORIGIN' : 'DENY')
    .header('cache-control', 'private, no-cache')
    .send(page.html)
}

/** A static asset whose address carries its content's hash: cached a day, revalidated by its ETag. */
export function sendAsset(
  reply: FastifyReply,
  ifNoneMatch: string | undefined,
  asset: { body: string; etag: string; contentType: string },
) {
  reply.header('etag', asset.etag).header('cache-control', 'public, max-age=86400')
  if (ifNoneMatch === asset.etag) return reply.status(304).send()
  return reply.header('content-type', asset.contentType).send(asset.body)
}
