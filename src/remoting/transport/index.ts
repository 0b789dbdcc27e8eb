export { formatAddress, type HostPort, parseAddress } from './address.js';
export {
  bodyOverLimitRemark,
  DEFAULT_REQUEST_BODY_MAX_SIZE,
  DEFAULT_REQUEST_BODY_MAX_SIZE_BY_CODE,
  type RequestBodyLimitSettings,
  requestBodyLimit,
} from './body-limits.js';
export {
  type BeforeBodyCheck,
  Connection,
  type ConnectionEvents,
  type ConnectionOptions,
  type InboundRequestHandler,
  type InvokeOptions,
  type ProcessorContext,
} from './connection.js';
export { REJECT_REQUEST_REMARK, RequestDispatcher } from './dispatcher.js';
export {
  RemotingAbortedError,
  RemotingConnectError,
  RemotingConnectionClosedError,
  RemotingTimeoutError,
  RemotingTooMuchRequestError,
} from './errors.js';
export { OpaqueSequence, PendingRequests, processOpaqueSequence } from './pending-requests.js';
export type { RequestProcessor, RPCHook } from './processor.js';
export { RemotingClient, type RemotingClientOptions } from './remoting-client.js';
export {
  type BoundAddress,
  type HandleOptions,
  type ListenOptions,
  RemotingServer,
  type RemotingServerEvents,
  type RemotingServerOptions,
} from './remoting-server.js';
export {
  type ConnectionSettings,
  clientConnectionSettings,
  clientSettings,
  DEFAULT_REMOTING_CLIENT_SETTINGS,
  DEFAULT_REMOTING_SERVER_SETTINGS,
  type RemotingClientSettings,
  type RemotingServerSettings,
  serverConnectionSettings,
  serverSettings,
} from './settings.js';
