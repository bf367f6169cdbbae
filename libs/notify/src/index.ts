export * from './outbound-http.js';
export * from './alert-messages.js';
export * from './channel-senders.js';
export * from './quiet-hours.js';
export * from './channel-message.js';
export * from './report-messages.js';
export * from './alert-group-messages.js';
