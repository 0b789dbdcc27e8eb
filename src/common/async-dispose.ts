/**
 * `Symbol.asyncDispose`, which the clients and startEmbedded's handle implement so that `await using`
 * shuts them down. Node has it from 20.4 (and 18.18); `engines` allows any 20.x, so on an older one it
 * is defined here the way later Node versions define it, before any class names it as a method key.
 * Import this module for its effect in every file that defines such a method.
 */
if (typeof Symbol.asyncDispose !== 'symbol') {
  Object.defineProperty(Symbol, 'asyncDispose', {
    value: Symbol('Symbol.asyncDispose'),
    writable: false,
    enumerable: false,
    configurable: false,
  });
}

export {};
