export * from './outbound-http.js';
