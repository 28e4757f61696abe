/**
 * The judgments: each rule of the contract as a pure function of one exchange (request and answer)
 * and the facts it needs, answering the violations found. The conformance suite chooses and sends
 * requests, then applies these; a validating proxy can apply them to traffic it only observes.
 * Imports only `contract/`.
 */
export * from './exchange.js';
export * from './context.js';
export * from './answer.js';
export * from './rules.js';
export * from './order-info.js';
export * from './auth.js';
export * from './create.js';
export * from './request-errors.js';
export * from './server.js';
export * from './content-coding.js';
export * from './documented.js';
export * from './request.js';
export * from './records.js';
