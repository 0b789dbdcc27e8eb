/**
 * The server side RPC hook of plain ACL (upstream registers one per AccessValidator on the broker's
 * servers): builds the AccessRequest, asks the manager, logs a denial and throws it on, so the
 * transport answers SYSTEM_ERROR with the AclException remark (nothing for a oneway request).
 * Structurally an RPCHook; the resources per request code come from the server that uses it.
 */

import { type AccessRequest, type AccessRequestSource, accessRequestOf } from './access-request.js';
import { AclException, AclFrame } from './acl-exception.js';
import type { DenialLog } from './denial-log.js';

/** Throws on a malformed header or body; the message becomes the denial's (upstream's parse rethrow). */
export type ResourcesOf = (request: AccessRequestSource) => Map<string, number> | undefined;

/** Decides a request: returns to let it through, throws an AclException to refuse it. */
export interface AccessValidator {
  validate(request: AccessRequest): void;
}

export class AclServerHook {
  constructor(
    private readonly manager: AccessValidator,
    private readonly resourcesOf: ResourcesOf,
    private readonly denials: DenialLog,
  ) {}

  doBeforeRequest(remoteAddr: string, request: AccessRequestSource): void {
    try {
      let resources: Map<string, number> | undefined;
      if (request.extFields !== undefined) {
        try {
          resources = this.resourcesOf(request);
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          throw new AclException(message, AclFrame.parse, { cause: error });
        }
      }
      this.manager.validate(accessRequestOf(request, remoteAddr, resources));
    } catch (error) {
      const denial =
        error instanceof AclException
          ? error
          : new AclException(error instanceof Error ? error.message : String(error), AclFrame.parse);
      this.denials.denied(
        denial.frame,
        request.code,
        request.extFields?.AccessKey,
        remoteAddr,
        denial.message,
      );
      throw denial;
    }
  }

  doAfterResponse(): void {}
}
