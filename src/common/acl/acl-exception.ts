/**
 * upstream's `org.apache.rocketmq.acl.common.AclException`. A denial reaches the client as
 * SYSTEM_ERROR with RemotingHelper.exceptionSimpleDesc(e) as remark: `e.toString()`, a comma and the
 * top stack frame. toString() gives that text, with the frame of the upstream method and line
 * (4.9.8) that throws the same message, so clients that match on the remark see what upstream sends.
 */

const PLAIN = 'org.apache.rocketmq.acl.plain';
const COMMON = 'org.apache.rocketmq.acl.common';

/** The throw sites of upstream 4.9.8, as a Java stack frame prints them. */
export const AclFrame = {
  validateNoAccessKey: `${PLAIN}.PlainPermissionManager.validate(PlainPermissionManager.java:664)`,
  validateUnknownAccessKey: `${PLAIN}.PlainPermissionManager.validate(PlainPermissionManager.java:668)`,
  validateNoResource: `${PLAIN}.PlainPermissionManager.validate(PlainPermissionManager.java:675)`,
  validateSignature: `${PLAIN}.PlainPermissionManager.validate(PlainPermissionManager.java:684)`,
  checkPermAdmin: `${PLAIN}.PlainPermissionManager.checkPerm(PlainPermissionManager.java:581)`,
  checkPermDefault: `${PLAIN}.PlainPermissionManager.checkPerm(PlainPermissionManager.java:606)`,
  checkPermExplicit: `${PLAIN}.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)`,
  checkAccountConfig: `${PLAIN}.PlainPermissionManager.checkPlainAccessConfig(PlainPermissionManager.java:627)`,
  parse: `${PLAIN}.PlainAccessValidator.parse(PlainAccessValidator.java:134)`,
  parseResourcePerms: `${COMMON}.Permission.parseResourcePerms(Permission.java:87)`,
  checkResourcePerms: `${COMMON}.Permission.checkResourcePerms(Permission.java:100)`,
  remoteAddress: `${PLAIN}.RemoteAddressStrategyFactory.getRemoteAddressStrategy(RemoteAddressStrategyFactory.java:130)`,
  yaml: `${COMMON}.AclUtils.getYamlDataObject(AclUtils.java:254)`,
} as const;

export const ACL_EXCEPTION_CLASS = `${COMMON}.AclException`;

export class AclException extends Error {
  /** The Java stack frame the remark ends with. */
  readonly frame: string;
  /** The ACL hook logs each denial itself (rate-limited); the transport does not log it again. */
  readonly alreadyLogged = true;

  constructor(message: string, frame: string = AclFrame.validateSignature, options?: ErrorOptions) {
    super(message, options);
    this.name = 'AclException';
    this.frame = frame;
  }

  /** The remark upstream's broker sends for this exception. */
  override toString(): string {
    return `${ACL_EXCEPTION_CLASS}: ${this.message}, ${this.frame}`;
  }
}
