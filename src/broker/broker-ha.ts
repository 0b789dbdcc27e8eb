/**
 * How the broker guards its HA service (ours; upstream's HA port streams the commit log to whoever
 * connects): the listener speaks TLS as the main port does (an enforcing broker refuses plaintext
 * HA), with ACL on and haAuthMode=acl it serves only a slave whose signed handshake names an admin
 * account with no per-topic limits, and a slave connects and signs the same way.
 */
import { randomBytes } from 'node:crypto';
import { Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { echoAccessKey } from '../common/acl/access-request.js';
import { signatureEquals } from '../common/acl/acl-signer.js';
import type { Clock } from '../common/clock.js';
import type { Logger } from '../common/logger.js';
import { MAX_SIGNATURE_LENGTH } from '../common/platform/acl/plain-permission-manager.js';
import { tlsConnectOptions } from '../remoting/transport/remoting-client.js';
import { TlsAcceptor } from '../remoting/transport/tls-acceptor.js';
import {
  type TlsServerSettings,
  tlsClientSettings,
  tlsServerSettings,
} from '../remoting/transport/tls-settings.js';
import { type TlsSystemConfig, tlsClientOptionsOf } from '../remoting/transport/tls-system-config.js';
import type { HAClientTransport } from '../store/ha/ha-client.js';
import type { HAServerGuard } from '../store/ha/ha-gate.js';
import {
  encodeHandshake,
  type HAHandshake,
  handshakeSignature,
  ReplayGuard,
} from '../store/ha/ha-handshake.js';
import type { HATransport } from '../store/ha/ha-service.js';
import type { BrokerAcl } from './acl/broker-acl.js';
import { parseInnerCredentials } from './acl/outer-acl-hook.js';
import type { BrokerConfig } from './broker-config.js';
import { haSigned } from './broker-config-ha.js';

export interface BrokerHaTransportOptions {
  config: BrokerConfig;
  /** The broker's plain ACL; undefined when aclEnable is off. */
  acl: BrokerAcl | undefined;
  /** The main port's TLS server settings (mode, certificates), defaults for the rest. */
  tlsServer: Partial<TlsServerSettings>;
  /** The TLS system properties (tlsEnable and the client keys). */
  tls: TlsSystemConfig;
  clock: Clock;
  logger: Logger;
}

export function brokerHaTransport(o: BrokerHaTransportOptions): HATransport {
  const settings = tlsServerSettings(o.tlsServer);
  return { guard: serverGuard(o, settings), client: clientTransport(o, settings) };
}

function serverGuard(o: BrokerHaTransportOptions, settings: TlsServerSettings): HAServerGuard {
  // The gate hands the same callback with every socket.
  let serve: ((stream: Socket) => void) | undefined;
  // Built on the first connection: a broker that never accepts one never reads certificate files.
  let acceptor: TlsAcceptor | undefined;
  const tlsAcceptor = (): TlsAcceptor => {
    acceptor ??= new TlsAcceptor({
      settings,
      // A slave that says nothing for this long is dropped anyway (haHousekeepingInterval).
      firstByteTimeoutMs: o.config.haHousekeepingInterval,
      logger: o.logger.child('tls'),
      serve: (stream) => {
        if (stream instanceof Socket && serve !== undefined) serve(stream);
        else stream.destroy();
      },
    });
    return acceptor;
  };
  const guard: HAServerGuard = {
    accept(socket, next) {
      serve = next;
      tlsAcceptor().accept(socket);
    },
    close() {
      acceptor?.close();
    },
  };
  const acl = o.acl;
  if (acl !== undefined && haSigned(o.config)) {
    const replay = new ReplayGuard(o.config.haAuthMaxSkewMillis);
    guard.verify = (hs: HAHandshake): string | undefined => {
      const who = echoAccessKey(hs.accessKey);
      const owned = acl.manager.current.accounts.get(hs.accessKey);
      if (owned === undefined) return `HA handshake of unknown accessKey ${who}`;
      const expected = handshakeSignature(hs, owned.secretKey, o.config.brokerName);
      if (hs.signature.length > MAX_SIGNATURE_LENGTH || !signatureEquals(expected, hs.signature)) {
        return `HA handshake signature of ${who} does not verify (another secretKey, or a slave of another brokerName)`;
      }
      // The stream holds every topic: only an account that may read every topic may have it.
      if (!owned.admin || owned.resourcePerms !== undefined) {
        return `HA needs an admin account without per-topic or per-group permissions; ${who} is not one`;
      }
      return replay.admit(hs, o.clock.now());
    };
  }
  return guard;
}

/** TLS to the master when this broker enforces TLS or tlsEnable is on; the handshake when signed. */
function clientTransport(o: BrokerHaTransportOptions, server: TlsServerSettings): HAClientTransport {
  const transport: HAClientTransport = {};
  if (server.tlsMode === 'enforcing' || o.tls.tlsEnable) {
    const settings = tlsClientSettings(tlsClientOptionsOf({ ...o.tls, tlsEnable: true }));
    if (settings !== undefined) {
      transport.connector = (host, port) => ({
        socket: tlsConnect(tlsConnectOptions(host, port, settings)).setNoDelay(true),
        ready: 'secureConnect',
      });
    }
  }
  if (haSigned(o.config)) {
    const credentials = parseInnerCredentials(o.config.innerClientAuthenticationCredentials);
    if (credentials !== undefined) {
      transport.handshake = () =>
        encodeHandshake(credentials, o.config.brokerName, o.clock.now(), randomBytes(16));
    }
  }
  return transport;
}
