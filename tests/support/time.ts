/** The tests' clock: seconds, as the API's Unix times are. */

export const DAY = 86_400

/** Now, in whole Unix seconds. */
export const nowSeconds = () => Math.floor(Date.now() / 1000)

/** The UTC day of a Unix time, `YYYY-MM-DD`. */
export const isoDay = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10)

/** The day of a Unix time in a time zone, `YYYY-MM-DD`. */
export const dayIn = (zone: string, seconds: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(seconds * 1000)
