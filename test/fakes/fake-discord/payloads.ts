/**
 * Builders of Discord API payloads (API v10 shapes) for the fake gateway and REST server, and for
 * recorded-payload unit tests: resources (users, channels, guilds, messages) and interactions, one namespace.
 */
export * from './resource-payloads.js';
export * from './interaction-payloads.js';
