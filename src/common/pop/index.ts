export * from './ack-msg.js';
export * from './batch-ack.js';
export * from './bit-set.js';
export * from './extra-info.js';
export * from './json-fields.js';
export * from './key-builder.js';
export * from './pop-check-point.js';
export * from './pop-message-const.js';
