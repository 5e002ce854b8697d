import type { EventMetadata, EventToFold, RecordedEvent } from './port.ts'

/*
 * An event as a store reads it: its data and metadata kept as the JSON text
 * stored, parsed when first asked for.
 */

/**
 * Data and metadata are parsed on first access: a projector skips most events
 * of the log by type alone and never pays for parsing them. A class, not an
 * object with getters, so thousands of events a batch share one shape and
 * allocate no closures.
 */
export class EventRow implements EventToFold {
  readonly revision: number
  readonly position: bigint
  readonly type: string
  #json: string
  #data: unknown

  constructor(revision: number, position: bigint, type: string, json: string) {
    this.revision = revision
    this.position = position
    this.type = type
    this.#json = json
  }

  get data(): unknown {
    this.#data ??= JSON.parse(this.#json)
    return this.#data
  }

  /** Kept beside the parsed data: the orders read model copies it into a document's pending events. */
  get dataJson(): string {
    return this.#json
  }
}

export class StoredEvent extends EventRow implements RecordedEvent {
  readonly id: string
  readonly stream: string
  #metadataJson: string
  #metadata: EventMetadata | undefined

  constructor(
    position: bigint,
    revision: number,
    id: string,
    type: string,
    data: string,
    metadata: string,
    stream: string,
  ) {
    super(revision, position, type, data)
    this.id = id
    this.stream = stream
    this.#metadataJson = metadata
  }

  get metadata(): EventMetadata {
    this.#metadata ??= parseMetadata(this.#metadataJson)
    return this.#metadata
  }
}

/**
 * A command stamps all its events with the same metadata: a projector reading
 * a 3000-event request parses it once, and the events share the (read-only)
 * result.
 */
let lastMetadata: { json: string; parsed: EventMetadata } | undefined
function parseMetadata(json: string): EventMetadata {
  if (lastMetadata?.json !== json) lastMetadata = { json, parsed: JSON.parse(json) as EventMetadata }
  return lastMetadata.parsed
}
