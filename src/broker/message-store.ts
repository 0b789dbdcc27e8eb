/**
 * The message store as the broker's processors see it: the store's own interface (src/store). The
 * broker builds a DefaultMessageStore over storePathRootDir unless one is handed in (tests hand in a
 * store whose queues hold what they say).
 */
export type { MessageStore as BrokerMessageStore } from '../store/message-store.js';
