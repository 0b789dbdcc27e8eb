/**
 * What a RemotingServer serves TLS with (upstream's TlsHelper.buildSslContext, server side): in
 * test mode a self-signed certificate made on the first ClientHello (once per process, so plain
 * start-ups never pay for it); otherwise the configured PEM files, read when the server starts.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext, type PeerCertificate, type TLSSocket, type TlsOptions } from 'node:tls';
import { ValidationError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { generateSelfSignedCertificate, type KeyAndCertificate } from './self-signed-cert.js';
import type { TlsServerSettings } from './tls-settings.js';

let testCertificate: KeyAndCertificate | undefined;

/** The process's test-mode key and certificate, made on first use. */
export function testModeCertificate(): KeyAndCertificate {
  testCertificate ??= generateSelfSignedCertificate('localhost');
  return testCertificate;
}

function readPem(key: string, path: string | undefined): Buffer {
  if (path === undefined) throw new ValidationError(`${key} must be set when tls.test.mode.enable is false`);
  try {
    return readFileSync(path);
  } catch (error) {
    throw new ValidationError(`${key} ${path}: ${(error as Error).message}`);
  }
}

function presentedCertificate(socket: TLSSocket): boolean {
  const peer: PeerCertificate | Record<string, never> = socket.getPeerCertificate();
  return peer !== null && Object.keys(peer).length > 0;
}

export class ServerTlsContext {
  private readonly settings: Readonly<TlsServerSettings>;
  private readonly logger: Logger;
  private fileOptions: TlsOptions | undefined;

  constructor(settings: Readonly<TlsServerSettings>, logger: Logger) {
    this.settings = settings;
    this.logger = logger;
  }

  /**
   * Reads the configured key, certificate and CA files so that a bad path fails the start instead
   * of every later handshake (upstream only logs it and then closes each TLS connection).
   */
  prepare(): void {
    const s = this.settings;
    if (s.tlsMode === 'disabled') return;
    if (s.tlsTestModeEnable) {
      if (s.tlsServerKeyPath !== undefined || s.tlsServerCertPath !== undefined) {
        this.logger.warn(
          'tls.server.keyPath and tls.server.certPath are not used while tls.test.mode.enable is true',
        );
      }
      return;
    }
    this.fileOptions = this.buildFileOptions();
  }

  /** Options of the tls.Server that runs the handshakes; the test certificate is made on first call. */
  serverOptions(): TlsOptions {
    if (this.settings.tlsTestModeEnable) {
      const { key, cert } = testModeCertificate();
      // Upstream asks for an optional client certificate it cannot verify; asking for none is the same.
      return { key, cert, requestCert: false, rejectUnauthorized: false };
    }
    this.fileOptions ??= this.buildFileOptions();
    return this.fileOptions;
  }

  /**
   * After a handshake: why the peer's certificate is not acceptable (one of a few fixed texts, so it
   * also keys the refusal's log rate limit), or undefined. Node checks chains
   * itself only when told to reject, which would also reject a missing certificate, so an optional
   * or unverified one is checked here.
   */
  refusePeer(socket: TLSSocket): string | undefined {
    const s = this.settings;
    if (s.tlsTestModeEnable || s.tlsServerNeedClientAuth === 'none') return undefined;
    const presented = presentedCertificate(socket);
    if (!presented) return s.tlsServerNeedClientAuth === 'require' ? 'no client certificate' : undefined;
    if (s.tlsServerAuthClient && !socket.authorized) {
      return `client certificate not trusted (${String(socket.authorizationError)})`;
    }
    return undefined;
  }

  private buildFileOptions(): TlsOptions {
    const s = this.settings;
    const options: TlsOptions = {
      cert: readPem('tls.server.certPath', s.tlsServerCertPath),
      key: readPem('tls.server.keyPath', s.tlsServerKeyPath),
      requestCert: s.tlsServerNeedClientAuth !== 'none',
      rejectUnauthorized: false,
    };
    if (s.tlsServerKeyPassword !== undefined) options.passphrase = s.tlsServerKeyPassword;
    if (s.tlsServerAuthClient && s.tlsServerTrustCertPath !== undefined) {
      options.ca = readPem('tls.server.trustCertPath', s.tlsServerTrustCertPath);
    }
    try {
      // A key that does not match its certificate, or a wrong passphrase, fails here and not at the
      // first handshake. OpenSSL's messages name neither the key nor the passphrase.
      createSecureContext(options);
    } catch (error) {
      throw new ValidationError(`tls.server.keyPath/certPath: ${(error as Error).message}`);
    }
    return options;
  }
}
