/**
 * ClientChannelInfo (`broker/.../client/ClientChannelInfo.java`): one client connection as a group
 * knows it. A channel is the connection object itself (identity), as Netty's Channel is upstream.
 */
import type { RemotingCommand } from '../../remoting/protocol/command.js';

/** What the broker needs of a client connection; the transport's Connection is one. */
export interface ClientChannel {
  /** `ip:port` of the client. */
  readonly remoteAddress: string;
  readonly isOpen: boolean;
  close(reason?: string): void;
  invokeOneway(request: RemotingCommand): Promise<void>;
  /** A request the client answers (broker to client: consumer status, running info...). */
  invoke(request: RemotingCommand, options?: { timeoutMs?: number | undefined }): Promise<RemotingCommand>;
}

export interface ClientChannelInfo {
  readonly channel: ClientChannel;
  readonly clientId: string;
  /** LanguageCode name of the client's requests. */
  readonly language: string;
  /** MQVersion ordinal of the client's requests. */
  readonly version: number;
  /** Last heartbeat (clock ms). */
  lastUpdateTimestamp: number;
}
