/** Baton's typed Socket.IO client and the contracts it speaks. */
export { BatonClient, type CommandAck, type ClientSubscription, type StreamMessage } from './baton-client.js';
export type { Command, CommandType, CommandOf } from '../domain/commands.js';
export type { DomainEvent, EventType } from '../domain/events.js';
export type { StreamRequest } from '../domain/stream-request.js';
