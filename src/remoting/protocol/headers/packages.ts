import { inherited, opt } from '../header-schema.js';

/**
 * Java packages of the 4.9.8 header classes. Java's extFields insertion order hashes the declaring
 * class name (see header-schema.ts), so these must be the 4.9.8 names; 5.x moved the classes to
 * `org.apache.rocketmq.remoting.protocol.header`, which changes that order but nothing else.
 */
export const HEADER_PACKAGE = 'org.apache.rocketmq.common.protocol.header';
export const NAMESRV_HEADER_PACKAGE = `${HEADER_PACKAGE}.namesrv`;
export const RPC_REQUEST_HEADER_CLASS = 'org.apache.rocketmq.common.rpc.RpcRequestHeader';

/**
 * Fields of the superclass RpcRequestHeader (4.9.5+): `bname`, the broker the request is meant
 * for. 5.x adds `ns`, `nsd` and `oway` there; decoders ignore them like any unknown key.
 */
export const RPC_REQUEST_HEADER_FIELDS = {
  bname: inherited(RPC_REQUEST_HEADER_CLASS, opt('string')),
};
