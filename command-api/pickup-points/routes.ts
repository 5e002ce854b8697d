import { jobResource } from '../../projectors/resources/schemas.ts'
import multipart from '@fastify/multipart'
import type { FastifyRequest } from 'fastify'
import { ShiplogError, validationError } from '../../shared/domain/errors.ts'
import { byteSize } from '../../shared/infra/error-answers.ts'
import { uploadKey } from '../../shared/domain/jobs/job.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import type { App } from '../../shared/infra/http/server.ts'
import type { JobQueue } from '../../shared/infra/jobs/queue.ts'
import { acceptJobRequest, pathCalled } from '../command-request.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'

const IMPORT_PATH = '/v2/pickup_points/import'

export function pickupPointWriteRoutes(app: App, rt: Runtime, queue: JobQueue) {
  app.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: rt.config.MAX_UPLOAD_BYTES, files: 1, fields: 10 } })
    // A CSV posted as the body itself (text/csv) is told what this route takes, not the JSON the others take.
    scope.addContentTypeParser('*', (_request, _body, done) => done(notMultipart(), undefined))
    scope.post(
      IMPORT_PATH,
      { schema: { response: { 202: jobResource }, summary: 'Import pickup points from a CSV file (a job)' } },
      async (request, reply) => {
        const { account } = callerOf(request)
        const jobId = rt.ids.next()
        const blob = uploadKey(account.id, jobId)
        const file = await uploadedFile(request)
        const { bytes } = await rt.blobs.write(blob, file.file).catch(async (error: unknown) => {
          await rt.blobs.remove(blob)
          // The store's own fault (a full disk) stays a server fault; the body's is the client's.
          throw (error as NodeJS.ErrnoException).errno === undefined ? malformed(error) : error
        })
        if (file.file.truncated) {
          await rt.blobs.remove(blob)
          throw new ShiplogError(
            'SHIPLOG_ERR_PAYLOAD_TOO_LARGE',
            `The file is larger than ${byteSize(rt.config.MAX_UPLOAD_BYTES)}, the limit`,
            { file: 'is too large' },
          )
        }
        if (bytes === 0) {
          await rt.blobs.remove(blob)
          throw validationError('The file is empty', { file: 'is empty' })
        }
        const accepted = await acceptJobRequest(rt, queue, request, {
          job_id: jobId,
          type: 'pickup_points.import',
          payload: { method: 'POST', url: pathCalled(request), body: { file: { filename: file.filename, bytes } } },
          blob,
        })
        // A repeat with the same Idempotency-Key answers the first job: this upload is not needed.
        if (accepted.jobId !== jobId) await rt.blobs.remove(blob)
        return accepted.send(reply)
      },
    )
  })
}

async function uploadedFile(request: FastifyRequest) {
  if (!request.isMultipart()) throw notMultipart()
  const part = await request.file().catch((error: unknown) => {
    throw malformed(error)
  })
  if (part?.fieldname !== 'file') throw validationError('Missing the file part', { file: 'is required' })
  return part
}

const notMultipart = () =>
  new ShiplogError('SHIPLOG_ERR_UNSUPPORTED_MEDIA_TYPE', 'The body must be multipart/form-data with a part named file')

/** A body that does not parse as multipart (no boundary, cut short): the client's fault, named. */
function malformed(error: unknown) {
  const reason = error instanceof Error ? error.message : String(error)
  return validationError(`The multipart body is malformed: ${reason}`, { file: `could not be read: ${reason}` })
}
