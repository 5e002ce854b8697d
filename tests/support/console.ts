import { createUser } from '../../commands/users/change-user.ts'
import type { TestServer } from './server.ts'

/* The console over HTTP as a browser without script uses it: a cookie jar, pages, forms with their CSRF token. */

export const PASSWORD = 'correct horse battery'

/** A browser's cookie jar, enough for one site. */
export function jar() {
  const cookies = new Map<string, string>()
  return {
    header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    take(response: Response) {
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';')
        const at = pair!.indexOf('=')
        const value = pair!.slice(at + 1)
        if (value === '' || /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(line)) cookies.delete(pair!.slice(0, at))
        else cookies.set(pair!.slice(0, at), value)
      }
    },
    cookies,
  }
}
export type Jar = ReturnType<typeof jar>

export async function get(server: TestServer, path: string, cookies: Jar) {
  const response = await fetch(`${server.url}${path}`, { headers: { cookie: cookies.header() }, redirect: 'manual' })
  cookies.take(response)
  return { status: response.status, location: response.headers.get('location'), html: await response.text(), response }
}

export async function post(server: TestServer, path: string, cookies: Jar, form: Record<string, string>) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { cookie: cookies.header(), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  })
  cookies.take(response)
  return { status: response.status, location: response.headers.get('location'), html: await response.text(), response }
}

export const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? ''

export async function signIn(server: TestServer, cookies: Jar, email: string, password = PASSWORD) {
  const form = await get(server, '/console/login', cookies)
  return post(server, '/console/login', cookies, {
    _csrf: csrfOf(form.html),
    email,
    password,
    next: '/console/parcels',
  })
}

/** A console user of the server's account (a member unless said), signed in: their cookie jar. */
export async function signedIn(server: TestServer, email = 'sam@shop.example', role: 'member' | 'owner' = 'member') {
  await createUser(server.runtime, { accountId: server.accountId, email, role, password: PASSWORD })
  const cookies = jar()
  await signIn(server, cookies, email)
  return cookies
}
