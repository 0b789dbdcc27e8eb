import { inherited, opt } from '../header-schema.js';

/**
 * The 5.x package of the header classes. Java's extFields insertion order hashes the declaring class
 * name (see header-schema.ts), so headers that exist only in 5.x (the POP family) are declared under
 * their 5.x names.
 */
export const HEADER_PACKAGE_5X = 'org.apache.rocketmq.remoting.protocol.header';
export const RPC_REQUEST_HEADER_CLASS_5X = 'org.apache.rocketmq.remoting.rpc.RpcRequestHeader';
export const TOPIC_REQUEST_HEADER_CLASS_5X = 'org.apache.rocketmq.remoting.rpc.TopicRequestHeader';

/**
 * Fields a 5.x `TopicQueueRequestHeader` subclass inherits, in Java's collection order
 * (TopicQueueRequestHeader declares none, TopicRequestHeader `lo`, then RpcRequestHeader's four):
 * `lo` (logical queue), `ns` (namespace), `nsd` (namespaced), `bname` (the broker the request is
 * meant for; the Java client sets it), `oway` (oneway). All boxed and nullable, so left out unless set.
 */
export const TOPIC_QUEUE_REQUEST_HEADER_5X_FIELDS = {
  lo: inherited(TOPIC_REQUEST_HEADER_CLASS_5X, opt('boolean')),
  ns: inherited(RPC_REQUEST_HEADER_CLASS_5X, opt('string')),
  nsd: inherited(RPC_REQUEST_HEADER_CLASS_5X, opt('boolean')),
  bname: inherited(RPC_REQUEST_HEADER_CLASS_5X, opt('string')),
  oway: inherited(RPC_REQUEST_HEADER_CLASS_5X, opt('boolean')),
};
