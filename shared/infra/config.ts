import ipaddr from 'ipaddr.js'
import { z } from 'zod'
import { publishedLimits } from '../domain/carriers/tracking-apis.ts'
import { parseSecretKey } from './secrets.ts'

const roles = ['command', 'query', 'projector', 'worker'] as const
export type Role = (typeof roles)[number]

const isAddressOrRange = (v: string) => ipaddr.isValid(v) || ipaddr.isValidCIDR(v)

const url = (protocols: string[]) =>
  z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol)
      } catch {
        return false
      }
    },
    `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`,
  )

/** Every setting shiplog reads from the environment, validated once at start. */
export /** A carrier's daily request budget: unset, its published limit; 0, none. */
const perDay = z.coerce.number().int().min(0).optional()

const configSchema = z.object({
  /** TCP port of the HTTP server. */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Interface the HTTP server binds to. */
  HOST: z.string().min(1).default('0.0.0.0'),
  /** Folder of the embedded SQLite stores and uploaded files. */
  DATA_DIR: z.string().min(1).default('./data'),
  /** Redis used by the BullMQ job queue. */
  REDIS_URL: url(['redis:', 'rediss:']).default('redis://127.0.0.1:6379'),
  /** KurrentDB connection string; unset means the embedded SQLite event store. */
  EVENTSTORE_URL: url(['kurrentdb:', 'kurrentdb+discover:', 'esdb:', 'esdb+discover:']).optional(),
  /** MongoDB connection string; unset means the embedded SQLite read store. */
  MONGODB_URL: url(['mongodb:', 'mongodb+srv:']).optional(),
  /**
   * PostgreSQL connection string: both stores (and uploads) on PostgreSQL,
   * except a store EVENTSTORE_URL or MONGODB_URL puts elsewhere.
   */
  DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  /** Node number (0..31) baked into every id this process allocates; unique per writer process. */
  NODE_ID: z.coerce.number().int().min(0).max(31).default(0),
  /** pino log level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Roles this process runs when `shiplog serve` gets no --roles. */
  ROLES: z
    .string()
    .default(roles.join(','))
    .transform((v) =>
      v
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(roles)).min(1)),
  /** Longest a client may take to send a whole request, in ms (408 after): uploads of large CSV files included. */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(120_000),
  /** Largest JSON body of a batch route (trackers, events, batch_create), in bytes; other routes take less. */
  BODY_LIMIT: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  /**
   * Proxies whose X-Forwarded-For is believed: `true` (any), `false` (none:
   * the connection's address is the client's), or a comma-separated list of
   * addresses and CIDR ranges (the gateway's).
   */
  TRUST_PROXY: z
    .string()
    .default('false')
    .refine(
      (v) => v === 'true' || v === 'false' || v.split(',').every((a) => isAddressOrRange(a.trim())),
      'must be true, false, or addresses and CIDR ranges separated by commas, such as 10.0.0.2,172.18.0.0/16',
    )
    .transform((v): boolean | string => (v === 'true' ? true : v === 'false' ? false : v)),
  /**
   * Key sealing stored secrets (webhook signing secrets): 32 bytes in base64
   * or hex. Unset, a key is made in DATA_DIR (mode 0600); every process of a
   * layout with shared stores must be given the same one.
   */
  SHIPLOG_SECRET_KEY: z
    .string()
    .refine((v) => parseSecretKey(v) !== undefined, 'must be 32 bytes in base64 or hex (openssl rand -base64 32)')
    .optional(),
  /** Token /metrics asks for (Bearer, or HTTP Basic's password); unset, /metrics is open. */
  SHIPLOG_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Bearer token of the job queue dashboard at /admin/queues; unset, the dashboard is off. */
  SHIPLOG_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Past this share of V8's heap limit, requests are shed with 503 and Retry-After instead of risking the process. */
  LOAD_SHED_HEAP_PERCENT: z.coerce.number().int().min(1).max(100).default(85),
  /** Requests one key (or one address without a key) may make per minute on one process. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(6000),
  /** Largest CSV upload, in bytes (413 above). */
  MAX_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(50 * 1024 * 1024),
  /**
   * Orders the write side remembers as it last folded them (command role):
   * an upsert of a remembered order reads only its newer events. The default
   * holds the orders of a merchant with 20,000 parcels on their way; every
   * one is marked by each full collection of the heap, so more is not always
   * faster.
   */
  ORDER_CACHE_SIZE: z.coerce.number().int().min(0).default(20_000),
  /**
   * The memory those orders may take, by an estimate of each one's size: an
   * order of many trackers, or of large custom variables, counts for more.
   */
  ORDER_CACHE_MB: z.coerce.number().int().min(1).max(1_048_576).default(64),
  /** Jobs one worker process runs at once. */
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /**
   * `projected`: a write answers once the read models include it, so the
   * client's next read sees it without sending X-Shiplog-Position back;
   * `appended`: as soon as it is stored (reads then catch up within milliseconds).
   */
  SHIPLOG_WRITE_VISIBILITY: z.enum(['projected', 'appended']).default('projected'),
  /** Longest wait, in ms, of a write for the read models (then it answers anyway: it is stored). */
  SHIPLOG_WRITE_VISIBILITY_WAIT_MS: z.coerce.number().int().min(0).default(2000),
  /** Longest wait, in ms, of a read that sends X-Shiplog-Position back. */
  CONSISTENCY_WAIT_MS: z.coerce.number().int().min(0).default(5000),
  /** How often, in ms, a projector polls the event store for events written by other processes. */
  POLL_INTERVAL_MS: z.coerce.number().int().positive().default(100),
  /** `true` lets webhook endpoints point at private, loopback and link-local addresses (a receiver on the same network). */
  SHIPLOG_WEBHOOK_ALLOW_PRIVATE: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /** Replaces `https://<shop_domain>` for Shopify's Admin API (a proxy, or a loopback server in tests). */
  SHIPLOG_SHOPIFY_API_URL: url(['http:', 'https:']).optional(),
  /** `true` lets store connections point at private and loopback addresses (a store on the same network, tests). */
  SHIPLOG_CONNECTOR_ALLOW_PRIVATE: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /** Webhook endpoints one account may hold: each multiplies every event into a message. */
  SHIPLOG_WEBHOOK_ENDPOINTS_MAX: z.coerce.number().int().min(1).max(1000).default(16),
  /** Seconds between a webhook message's failed attempt and the next, one per retry; then it is failed. */
  SHIPLOG_WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default('5,300,1800,7200,18000,36000,36000')
    .refine((v) => /^\s*\d+(\s*,\s*\d+)*\s*$/.test(v), 'must be seconds separated by commas, such as 5,300,1800')
    .transform((v) => v.split(',').map((s) => Number(s.trim()))),
  /** SMTP server of customer e-mails (`smtp://user:pass@host:587` or `smtps://…:465`); unset, e-mails are built, not sent. */
  SMTP_URL: url(['smtp:', 'smtps:']).optional(),
  /**
   * The address customers reach the service at (`https://track.shop.example`):
   * tracking page links are made with it, and the e-mails' button opens the
   * tracking page (the carrier's page otherwise).
   */
  SHIPLOG_PUBLIC_URL: url(['http:', 'https:'])
    .transform((v) => v.replace(/\/+$/, ''))
    .optional(),
  /** Sender of customer e-mails. */
  SHIPLOG_MAIL_FROM: z.string().min(3).default('shiplog <no-reply@shiplog.local>'),
  /** Attempts at a customer e-mail before it is `failed`. */
  SHIPLOG_MAIL_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(6),
  /** Delay before the second attempt at an e-mail, in ms; it doubles at each further one. */
  SHIPLOG_MAIL_RETRY_DELAY_MS: z.coerce.number().int().min(0).default(2000),
  /**
   * Twilio Programmable Messaging for customer SMS: the account SID and auth
   * token, and the sender (a number, or a messaging service). Unset, no SMS
   * payload is built.
   */
  TWILIO_ACCOUNT_SID: z.string().min(1).optional(),
  TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  TWILIO_FROM: z.string().min(1).optional(),
  TWILIO_MESSAGING_SERVICE_SID: z.string().min(1).optional(),
  /** Twilio's API address (a loopback server's in tests). */
  SHIPLOG_SMS_API_URL: url(['http:', 'https:'])
    .transform((v) => v.replace(/\/+$/, ''))
    .default('https://api.twilio.com'),
  /** Attempts at an SMS the provider refuses for now (429, 5xx) before it is `failed`. */
  SHIPLOG_SMS_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(6),
  /** Delay before the second attempt at an SMS, in ms; it doubles at each further one. */
  SHIPLOG_SMS_RETRY_DELAY_MS: z.coerce.number().int().min(0).default(2000),
  /** DHL Shipment Tracking – Unified: its address and key; without a key DHL trackers are not polled. */
  SHIPLOG_DHL_API_URL: url(['http:', 'https:']).default('https://api-eu.dhl.com'),
  SHIPLOG_DHL_API_KEY: z.string().min(1).optional(),
  /** Requests per second to DHL's API, all worker processes together. */
  SHIPLOG_DHL_RATE_LIMIT: z.coerce.number().int().min(1).default(publishedLimits.dhl.perSecond),
  /** Requests a day (UTC) to DHL's API; 0: no daily budget. Unset: the carrier's published limit. */
  SHIPLOG_DHL_MAX_REQUESTS_PER_DAY: perDay,
  /** La Poste Suivi v2 (Colissimo, Chronopost): its address and key; without a key they are not polled. */
  SHIPLOG_LAPOSTE_API_URL: url(['http:', 'https:']).default('https://api.laposte.fr'),
  SHIPLOG_LAPOSTE_API_KEY: z.string().min(1).optional(),
  SHIPLOG_LAPOSTE_RATE_LIMIT: z.coerce.number().int().min(1).default(publishedLimits.laposte.perSecond),
  SHIPLOG_LAPOSTE_MAX_REQUESTS_PER_DAY: perDay,
  /** UPS Track API: OAuth 2 client credentials; unset, UPS trackers are not polled. */
  SHIPLOG_UPS_API_URL: url(['http:', 'https:']).default('https://onlinetools.ups.com'),
  SHIPLOG_UPS_CLIENT_ID: z.string().min(1).optional(),
  SHIPLOG_UPS_CLIENT_SECRET: z.string().min(1).optional(),
  SHIPLOG_UPS_RATE_LIMIT: z.coerce.number().int().min(1).default(publishedLimits.ups.perSecond),
  SHIPLOG_UPS_MAX_REQUESTS_PER_DAY: perDay,
  /** FedEx Track API: OAuth 2 client credentials (the project's API key and secret key). */
  SHIPLOG_FEDEX_API_URL: url(['http:', 'https:']).default('https://apis.fedex.com'),
  SHIPLOG_FEDEX_CLIENT_ID: z.string().min(1).optional(),
  SHIPLOG_FEDEX_CLIENT_SECRET: z.string().min(1).optional(),
  SHIPLOG_FEDEX_RATE_LIMIT: z.coerce.number().int().min(1).default(publishedLimits.fedex.perSecond),
  SHIPLOG_FEDEX_MAX_REQUESTS_PER_DAY: perDay,
  /** USPS Tracking v3: OAuth 2 client credentials (consumer key and secret). */
  SHIPLOG_USPS_API_URL: url(['http:', 'https:']).default('https://apis.usps.com'),
  SHIPLOG_USPS_CLIENT_ID: z.string().min(1).optional(),
  SHIPLOG_USPS_CLIENT_SECRET: z.string().min(1).optional(),
  SHIPLOG_USPS_RATE_LIMIT: z.coerce.number().int().min(1).default(publishedLimits.usps.perSecond),
  SHIPLOG_USPS_MAX_REQUESTS_PER_DAY: perDay,
  /** PostNL Shipment Status v2: the API key. */
  SHIPLOG_POSTNL_API_URL: url(['http:', 'https:']).default('https://api.postnl.nl'),
  SHIPLOG_POSTNL_API_KEY: z.string().min(1).optional(),
  SHIPLOG_POSTNL_RATE_LIMIT: z.coerce.number().int().min(1).default(publishedLimits.postnl.perSecond),
  SHIPLOG_POSTNL_MAX_REQUESTS_PER_DAY: perDay,
  /** GLS Track and Trace: HTTP Basic user and password. */
  SHIPLOG_GLS_API_URL: url(['http:', 'https:']).default('https://api.gls-group.net/track-and-trace-v1'),
  SHIPLOG_GLS_USERNAME: z.string().min(1).optional(),
  SHIPLOG_GLS_PASSWORD: z.string().min(1).optional(),
  SHIPLOG_GLS_RATE_LIMIT: z.coerce.number().int().min(1).default(publishedLimits.gls.perSecond),
  SHIPLOG_GLS_MAX_REQUESTS_PER_DAY: perDay,
  /** Royal Mail Tracking v2: the IBM client id and secret. */
  SHIPLOG_ROYALMAIL_API_URL: url(['http:', 'https:']).default('https://api.royalmail.net'),
  SHIPLOG_ROYALMAIL_CLIENT_ID: z.string().min(1).optional(),
  SHIPLOG_ROYALMAIL_CLIENT_SECRET: z.string().min(1).optional(),
  SHIPLOG_ROYALMAIL_RATE_LIMIT: z.coerce.number().int().min(1).default(publishedLimits.royal_mail.perSecond),
  SHIPLOG_ROYALMAIL_MAX_REQUESTS_PER_DAY: perDay,
  /** Days of deliveries delivery date estimation learns from: a carrier that slows down is seen within weeks. */
  SHIPLOG_ESTIMATION_WINDOW_DAYS: z.coerce.number().int().min(7).max(730).default(90),
  /** Seconds between two looks for trackers due a poll; also a tracker's first wait between polls. */
  SHIPLOG_POLL_INTERVAL: z.coerce.number().int().min(1).default(3600),
  /** Minutes a console session may go unused before it ends. */
  SHIPLOG_CONSOLE_IDLE_MINUTES: z.coerce.number().int().min(1).max(1440).default(30),
  /** Open GET /v2/events/stream connections an account may hold on one process; past it, 429. */
  SHIPLOG_EVENT_STREAMS_MAX: z.coerce.number().int().min(1).max(1000).default(5),
  /** Seconds between the live stream's heartbeat comments, which keep proxies from closing an idle stream. */
  SHIPLOG_EVENT_STREAM_HEARTBEAT: z.coerce.number().int().min(1).max(300).default(15),
  /** Seconds between two sweeps for trackers whose delay is due a look; each deadline within is queued at its second. */
  SHIPLOG_DELAY_SWEEP_INTERVAL: z.coerce.number().int().min(1).default(60),
  /** Name of the BullMQ queue (a fresh one per test keeps tests apart). */
  QUEUE_NAME: z.string().min(1).default('shiplog-jobs'),
})

export type Config = z.infer<typeof configSchema>
export const allRoles: readonly Role[] = roles

/** Credentials that only work together. */
const pairedSettings = [
  ['SHIPLOG_UPS_CLIENT_ID', 'SHIPLOG_UPS_CLIENT_SECRET'],
  ['SHIPLOG_FEDEX_CLIENT_ID', 'SHIPLOG_FEDEX_CLIENT_SECRET'],
  ['SHIPLOG_USPS_CLIENT_ID', 'SHIPLOG_USPS_CLIENT_SECRET'],
  ['SHIPLOG_GLS_USERNAME', 'SHIPLOG_GLS_PASSWORD'],
  ['SHIPLOG_ROYALMAIL_CLIENT_ID', 'SHIPLOG_ROYALMAIL_CLIENT_SECRET'],
] as const

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** Reads the configuration; a bad value throws a ConfigError naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const known = Object.fromEntries(Object.keys(configSchema.shape).map((k) => [k, env[k] === '' ? undefined : env[k]]))
  const result = configSchema.safeParse(known)
  if (result.success) {
    const twilio = [result.data.TWILIO_ACCOUNT_SID, result.data.TWILIO_AUTH_TOKEN]
    const sender = result.data.TWILIO_FROM ?? result.data.TWILIO_MESSAGING_SERVICE_SID
    if ((twilio.some(Boolean) || sender) && !(twilio.every(Boolean) && sender)) {
      throw new ConfigError(
        'Invalid configuration: TWILIO_ACCOUNT_SID must be set with TWILIO_AUTH_TOKEN and TWILIO_FROM or TWILIO_MESSAGING_SERVICE_SID, all or none, not some of them',
      )
    }
    for (const [a, b] of pairedSettings) {
      if (Boolean(result.data[a]) !== Boolean(result.data[b])) {
        const [unset, set] = result.data[a] ? [b, a] : [a, b]
        throw new ConfigError(`Invalid configuration: ${unset} must be set with ${set} (both or neither), not unset`)
      }
    }
    return result.data
  }
  // One line per setting, however many rules its value broke.
  const names = [...new Set(result.error.issues.map((i) => String(i.path[0])))]
  throw new ConfigError(
    names.map((name) => settingError(name, result.error.issues.find((i) => i.path[0] === name)!, env[name])).join('\n'),
  )
}

/** Variables whose value is never echoed back: a secret mistyped is still mostly a secret. */
const secretSetting = /KEY|TOKEN|SECRET|PASSWORD|SID/

/** One line: the variable, what it must be, what was given. */
function settingError(name: string, issue: z.core.$ZodIssue, given: string | undefined) {
  const shown = secretSetting.test(name) ? `a value of ${given?.length ?? 0} characters` : JSON.stringify(given)
  return `Invalid configuration: ${name} must be ${expectation(name, issue)}, not ${shown}`
}

function expectation(name: string, issue: z.core.$ZodIssue): string {
  const bounds = numberBounds(configSchema.shape[name as keyof typeof configSchema.shape])
  if (bounds) {
    const { minimum: min, maximum: max } = bounds
    const range =
      min !== undefined && max !== undefined
        ? ` from ${min} to ${max}`
        : min !== undefined
          ? ` of ${min} or more`
          : max !== undefined
            ? ` of ${max} or less`
            : ''
    return `a whole number${range}`
  }
  switch (issue.code) {
    case 'invalid_value':
      return `one of ${issue.values.map(String).join(', ')}${issue.path.length > 1 ? ', separated by commas' : ''}`
    case 'too_small':
      return `at least ${issue.minimum} characters`
    case 'custom':
      return issue.message.replace(/^must be /, '')
    default:
      return issue.message
  }
}

/** The range a numeric setting's schema allows, read from the schema itself so message and rule agree. */
function numberBounds(schema: z.ZodType | undefined): { minimum?: number; maximum?: number } | undefined {
  let inner: unknown = schema
  while (inner instanceof z.ZodDefault || inner instanceof z.ZodOptional) inner = inner.unwrap()
  if (!(inner instanceof z.ZodNumber)) return undefined
  const finite = (v: number | null) => (v === null || !Number.isFinite(v) || Math.abs(v) >= 2 ** 53 - 1 ? undefined : v)
  return { minimum: finite(inner.minValue), maximum: finite(inner.maxValue) }
}

/** Twilio's settings when SMS is on: the account, its token and the sender. */
export function smsSettings(config: Config) {
  const { TWILIO_ACCOUNT_SID: accountSid, TWILIO_AUTH_TOKEN: authToken } = config
  if (!accountSid || !authToken || !(config.TWILIO_FROM || config.TWILIO_MESSAGING_SERVICE_SID)) return undefined
  return {
    apiUrl: config.SHIPLOG_SMS_API_URL,
    accountSid,
    authToken,
    from: config.TWILIO_FROM,
    messagingServiceSid: config.TWILIO_MESSAGING_SERVICE_SID,
  }
}
export type SmsSettings = NonNullable<ReturnType<typeof smsSettings>>
