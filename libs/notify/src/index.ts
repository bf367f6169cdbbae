export * from './outbound-http.js';
export * from './alert-messages.js';
export * from './channel-senders.js';
export * from './quiet-hours.js';
