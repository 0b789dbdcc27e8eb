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
  buildCertificate,
  type CertificateSpec,
  generateEcKeyPair,
  generateSelfSignedCertificate,
  type KeyAndCertificate,
  privateKeyPem,
  toPem,
} from './self-signed-cert.js';
export {
  type ConnectionSettings,
  clientConnectionSettings,
  clientSettings,
  DEFAULT_REMOTING_CLIENT_SETTINGS,
  DEFAULT_REMOTING_SERVER_SETTINGS,
  type RemotingClientSettings,
  type RemotingServerOverrides,
  type RemotingServerSettings,
  serverConnectionSettings,
  serverSettings,
} from './settings.js';
export { TlsAcceptor, type TlsAcceptorOptions } from './tls-acceptor.js';
export {
  type Admission,
  admitConnection,
  type ConnectionKind,
  detectConnectionKind,
  HANDSHAKE_MAGIC_CODE,
} from './tls-detect.js';
export { ServerTlsContext, testModeCertificate } from './tls-server-context.js';
export {
  DEFAULT_TLS_SERVER_SETTINGS,
  type PemInput,
  TLS_CLIENT_AUTH_MODES,
  TLS_MODES,
  type TlsClientAuth,
  type TlsClientOptions,
  type TlsClientSettings,
  type TlsMode,
  type TlsServerConfig,
  type TlsServerSettings,
  tlsClientSettings,
  tlsServerSettings,
} from './tls-settings.js';
export {
  DEFAULT_TLS_CONFIG_FILE,
  DEFAULT_TLS_SYSTEM_CONFIG,
  isSecretTlsPropertyKey,
  isTlsPropertyKey,
  parseTlsProperties,
  resolveTlsSystemConfig,
  TLS_PROPERTY_KEYS,
  type TlsSystemConfig,
  tlsClientOptionsOf,
  tlsServerConfigOf,
  tlsSystemConfig,
} from './tls-system-config.js';
