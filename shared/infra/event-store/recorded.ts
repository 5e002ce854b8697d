import type { DomainEvent, EventData, EventType } from '../../domain/events/index.ts'
import type { EventToFold, RecordedEvent } from './port.ts'

/** A stored event read back, typed by its `type` like the domain event it records. */
export type RecordedDomainEvent = { [T in EventType]: RecordedEvent<T, EventData<T>> }[EventType]

/**
 * A stream's recorded events as the domain events its category holds. Streams
 * are written only through `toNewEvents`, which checks each event against its
 * schema (or is told its caller's own checks did), so the category names the types.
 */
export const asDomainEvents = <E extends DomainEvent>(events: readonly EventToFold[]): E[] => events as unknown as E[]

/**
 * Whether two recorded events were written by one command's append to one
 * stream: same stream, same request, same instant. An append's events follow
 * one another in the log and in their stream.
 */
export const sameAppend = (a: RecordedEvent, b: RecordedEvent) =>
  a.stream === b.stream &&
  a.metadata.correlationId === b.metadata.correlationId &&
  a.metadata.recordedAt === b.metadata.recordedAt
