import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { Ajv } from 'ajv'
import t from 'tap'
import { parse } from 'yaml'

/*
 * The compose file users start the distributed layout with holds to the
 * Compose Specification's JSON schema (the copy dclint ships), so `docker
 * compose` does not stop on it before anything runs. No engine is needed.
 */
const dclint = dirname(createRequire(import.meta.url).resolve('dclint/package.json'))
// Draft 07, named by an https address Ajv does not know it by: compiled without that name.
const { $schema: _draft, ...schema } = JSON.parse(
  readFileSync(join(dclint, 'schemas', 'compose.schema.json'), 'utf8'),
) as Record<string, unknown>

/** The distributed layouts: on KurrentDB and MongoDB, and on PostgreSQL. */
const layouts = ['docker-compose.yml', 'docker-compose.postgres.yml']

for (const file of layouts) {
  t.test(`${file} validates against the Compose Specification`, async (t) => {
    const compose = parse(readFileSync(file, 'utf8'), { merge: true }) as unknown
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema)
    const valid = validate(compose)
    t.same(
      validate.errors?.map((e) => `${e.instancePath} ${e.message}`) ?? [],
      [],
      'no schema errors (env_file is a list, every service key is known)',
    )
    t.ok(valid)
  })
}

t.test('the schema catches what compose itself refuses', async (t) => {
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema)
  t.notOk(
    validate({ services: { a: { image: 'x', env_file: { path: '.env', required: false } } } }),
    'env_file as a map',
  )
})

t.test('behind the gateway only the gateway is believed, and it sets X-Forwarded-For itself', async (t) => {
  for (const file of layouts) {
    const compose = parse(readFileSync(file, 'utf8'), { merge: true }) as {
      services: Record<
        string,
        { environment?: Record<string, string>; networks?: Record<string, { ipv4_address?: string }> }
      >
      configs: { gateway: { file: string } }
    }
    const gateway = compose.services.gateway!.networks?.default?.ipv4_address
    t.ok(gateway, `${file}: the gateway has a fixed address`)
    for (const role of ['command', 'query', 'worker', 'projector'])
      t.equal(compose.services[role]!.environment?.TRUST_PROXY, gateway, `${file}: ${role} trusts the gateway alone`)
    t.equal(compose.configs.gateway.file, './deploy/gateway.conf', `${file}: the one gateway configuration`)
  }
  const conf = readFileSync('deploy/gateway.conf', 'utf8')
  t.match(conf, /proxy_set_header X-Forwarded-For \$remote_addr;/)
  t.notMatch(conf, /proxy_add_x_forwarded_for/, "never the client's own value")
})
