/**
 * What the ACL interop suite shares: one plain_acl.yml for the official broker and ours, the
 * accounts in it, the official client's AclProbe (interop/) and upstream 4.9.8's answers to its
 * denial matrix, recorded from the official broker: the reference ours is held to.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runJava } from './harness.js';

export interface Account {
  readonly accessKey: string;
  readonly secretKey: string;
}

export const ADMIN: Account = { accessKey: 'AclAdminAK', secretKey: 'AclAdminSecret1' };
/** PUB on every topic by default, AclTopic and AclFlowTopic PUB|SUB, AclDenyTopic DENY; only group acl_cg. */
export const ALLOWED: Account = { accessKey: 'AclAllowedAK', secretKey: 'AclAllowedSecret1' };
export const SUB_ONLY: Account = { accessKey: 'AclSubOnlyAK', secretKey: 'AclSubOnlySecret1' };
/** whiteRemoteAddress 10.9.9.9: not the tests' address. */
export const OUTSIDE_WHITE: Account = { accessKey: 'AclOutsideAK', secretKey: 'AclOutsideSecret1' };
/** whiteRemoteAddress 127.0.0.1: the tests' address; AclDenyTopic DENY. */
export const WHITE: Account = { accessKey: 'AclWhiteAK', secretKey: 'AclWhiteSecret1' };

export const TOPIC = 'AclTopic';
export const DENY_TOPIC = 'AclDenyTopic';
/** The topic of the send-and-consume flows (a fresh one per broker, apart from the matrix's sends). */
export const FLOW_TOPIC = 'AclFlowTopic';
export const GROUP = 'acl_cg';
/** A group ALLOWED has no right on (its retry topic is the target of the %RETRY% cases). */
export const OTHER_GROUP = 'acl_other_cg';

export const PLAIN_ACL_YML = `# rocketmq-ts ACL interop fixture (upstream plain_acl.yml format)
globalWhiteRemoteAddresses:
accounts:
- accessKey: ${ADMIN.accessKey}
  secretKey: ${ADMIN.secretKey}
  admin: true
- accessKey: ${ALLOWED.accessKey}
  secretKey: ${ALLOWED.secretKey}
  admin: false
  defaultTopicPerm: PUB
  defaultGroupPerm: DENY
  topicPerms:
  - ${TOPIC}=PUB|SUB
  - ${FLOW_TOPIC}=PUB|SUB
  - ${DENY_TOPIC}=DENY
  groupPerms:
  - ${GROUP}=SUB
- accessKey: ${SUB_ONLY.accessKey}
  secretKey: ${SUB_ONLY.secretKey}
  defaultTopicPerm: SUB
  defaultGroupPerm: SUB
- accessKey: ${OUTSIDE_WHITE.accessKey}
  secretKey: ${OUTSIDE_WHITE.secretKey}
  whiteRemoteAddress: 10.9.9.9
  defaultTopicPerm: PUB|SUB
  defaultGroupPerm: SUB
- accessKey: ${WHITE.accessKey}
  secretKey: ${WHITE.secretKey}
  whiteRemoteAddress: 127.0.0.1
  defaultTopicPerm: PUB
  defaultGroupPerm: SUB
  topicPerms:
  - ${DENY_TOPIC}=DENY
`;

export function creds(a: Account): string {
  return `${a.accessKey}:${a.secretKey}`;
}

// ---------------------------------------------------------------------------------------------
// ROCKETMQ_HOME directories (mqadmin reads its credentials from <home>/conf/tools.yml only)

export interface TempHome {
  readonly dir: string;
  remove(): void;
}

/** A temp ROCKETMQ_HOME holding `files` (paths relative to it). */
export function tempHome(name: string, files: Readonly<Record<string, string>>): TempHome {
  const dir = mkdtempSync(join(tmpdir(), `rmq-interop-${name}-`));
  for (const [path, text] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(join(full, '..'), { recursive: true });
    writeFileSync(full, text);
  }
  return {
    dir,
    remove: () => {
      if (process.env.RMQ_INTEROP_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function toolsYml(a: Account): string {
  return `accessKey: ${a.accessKey}\nsecretKey: ${a.secretKey}\n`;
}

// ---------------------------------------------------------------------------------------------
// AclProbe

/** One case of AclProbe's matrix; see interop/.../AclProbe.java. */
export interface CaseOutcome {
  readonly case: string;
  readonly ok: boolean;
  /** The broker's response code (or the client's own, e.g. 208 for a query that found nothing). */
  readonly code?: number | null;
  readonly remark?: string | null;
  /** The exception the application got and its text (the producer's "Send [n] times ..."). */
  readonly error?: string;
  readonly message?: string;
  readonly clientCode?: number;
  readonly causes?: readonly string[];
  readonly msgId?: string;
}

function jsonLines(stdout: string): unknown[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as unknown);
}

async function aclProbe(args: readonly string[], timeoutMs: number): Promise<unknown[]> {
  const r = await runJava('org.rocketmqts.interop.AclProbe', args, { timeoutMs });
  if (r.exitCode !== 0) {
    throw new Error(
      `AclProbe ${args[0]} exit ${String(r.exitCode)}${r.timedOut ? ' (timed out)' : ''}\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-4000)}`,
    );
  }
  return jsonLines(r.stdout);
}

/** Runs every case of the matrix against one name server and broker; by case name. */
export async function runMatrix(namesrvAddr: string, brokerAddr: string): Promise<Map<string, CaseOutcome>> {
  const lines = await aclProbe(
    [
      'matrix',
      namesrvAddr,
      brokerAddr,
      '--admin',
      creds(ADMIN),
      '--allowed',
      creds(ALLOWED),
      '--sub-only',
      creds(SUB_ONLY),
      '--outside-white',
      creds(OUTSIDE_WHITE),
      '--white',
      creds(WHITE),
      '--topic',
      TOPIC,
      '--deny-topic',
      DENY_TOPIC,
      '--group',
      OTHER_GROUP,
      '--allowed-group',
      GROUP,
    ],
    120_000,
  );
  const byCase = new Map<string, CaseOutcome>();
  for (const line of lines) {
    const outcome = line as CaseOutcome;
    byCase.set(outcome.case, outcome);
  }
  return byCase;
}

/** The official producer signing as `account` sends `count` messages; their msgIds. */
export async function officialAclProduce(
  namesrvAddr: string,
  account: Account,
  topic: string,
  count: number,
): Promise<string[]> {
  const lines = await aclProbe(['produce', namesrvAddr, creds(account), topic, String(count)], 60_000);
  return lines.map((l) => {
    const r = l as { status: string; msgId: string };
    if (r.status !== 'SEND_OK') throw new Error(`send status ${r.status}`);
    return r.msgId;
  });
}

/** The official push consumer signing as `account`: the distinct msgIds it got, once `count` arrived. */
export async function officialAclConsume(
  namesrvAddr: string,
  account: Account,
  topic: string,
  group: string,
  count: number,
  timeoutMs: number,
): Promise<Set<string>> {
  const lines = await aclProbe(
    ['consume', namesrvAddr, creds(account), topic, group, String(count), String(timeoutMs)],
    timeoutMs + 30_000,
  );
  const ids = new Set<string>();
  for (const l of lines) {
    if (typeof l === 'object' && l !== null && 'msg' in l)
      ids.add((l as { msg: { msgId: string } }).msg.msgId);
  }
  return ids;
}

// ---------------------------------------------------------------------------------------------
// upstream's answers

const ACL_EXCEPTION = 'org.apache.rocketmq.acl.common.AclException';
const PPM = 'org.apache.rocketmq.acl.plain.PlainPermissionManager';

/** Upstream 4.9.8's remark for an AclException thrown at `frame`. */
function aclRemark(message: string, frame: string): string {
  return `${ACL_EXCEPTION}: ${message}, ${frame}`;
}

const NO_ACCESS_KEY = aclRemark(
  'No accessKey is configured',
  `${PPM}.validate(PlainPermissionManager.java:664)`,
);
const signatureFailed = (ak: string) =>
  aclRemark(`Check signature failed for accessKey=${ak}`, `${PPM}.validate(PlainPermissionManager.java:684)`);
const needAdmin = (code: number, ak: string) =>
  aclRemark(
    `Need admin permission for request code=${code}, but accessKey=${ak} is not`,
    `${PPM}.checkPerm(PlainPermissionManager.java:581)`,
  );
const noDefaultPerm = (what: string) =>
  aclRemark(`No default permission for ${what}`, `${PPM}.checkPerm(PlainPermissionManager.java:606)`);
const noExplicitPerm = (what: string) =>
  aclRemark(`No default permission for ${what}`, `${PPM}.checkPerm(PlainPermissionManager.java:611)`);

/**
 * An expected answer: accepted, or refused with `code` and `remark` (compared without its stack
 * frame), or a remark matching a pattern where the text depends on the JDK.
 */
export type Expected =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: number; readonly remark: string | RegExp | null };

const OK: Expected = { ok: true };
const denied = (remark: string): Expected => ({ ok: false, code: 1, remark });

/**
 * What the official 4.9.8 broker answered to each case (observed with this fixture; the suite checks
 * it again on every run). Every ACL denial is SYSTEM_ERROR (1) with
 * `AclException: <message>, <throwing frame>`.
 */
export const UPSTREAM_MATRIX: Readonly<Record<string, Expected>> = {
  sendAllowed: OK,
  produceForQuery: OK,
  wrongSecret: denied(signatureFailed(ALLOWED.accessKey)),
  wrongSecretDefaultRetries: denied(signatureFailed(ALLOWED.accessKey)),
  unknownAccessKey: denied(
    aclRemark('No acl config for NoSuchAccessKey', `${PPM}.validate(PlainPermissionManager.java:668)`),
  ),
  unknownAccessKeyDefaultRetries: denied(
    aclRemark('No acl config for NoSuchAccessKey', `${PPM}.validate(PlainPermissionManager.java:668)`),
  ),
  // an explicit topicPerms entry (line 611) and the default perm (606) say the same
  denyTopic: denied(noExplicitPerm(`topic:${DENY_TOPIC}`)),
  subOnlySend: denied(noDefaultPerm(`topic:${TOPIC}`)),
  unsignedSend: denied(NO_ACCESS_KEY),
  nonAdminUpdateTopic: denied(needAdmin(17, ALLOWED.accessKey)),
  nonAdminCreateTopic: denied(needAdmin(17, ALLOWED.accessKey)),
  adminUpdateTopic: OK,
  // 4.9.8 checks no account for the ACL admin codes 50-53 (upstream fixed that in 5.3)
  nonAdminAclVersion: OK,
  adminAclVersion: OK,
  nonAdminUpdateAclConfig: OK,
  // whiteRemoteAddress is a bypass, not a restriction: outside it the signature is checked
  outsideWhiteSigned: OK,
  outsideWhiteWrongSecret: denied(signatureFailed(OUTSIDE_WHITE.accessKey)),
  // inside it neither the signature nor the permissions are
  whiteWrongSecret: OK,
  whiteDenyTopic: OK,
  // the client signs `_UNIQUE_KEY_QUERY` (always present, "true" or "false"), the broker leaves it
  // out: every QUERY_MESSAGE of the official client fails the signature check
  queryUniqueKeyRaw: denied(signatureFailed(ALLOWED.accessKey)),
  queryKeyFlagFalseRaw: denied(signatureFailed(ALLOWED.accessKey)),
  queryKeyNoFlagRaw: { ok: false, code: 22, remark: 'can not find message, maybe time range not correct' },
  // ... which the client only logs: it reports that nothing was found
  queryUniqueKeyClient: { ok: false, code: 208, remark: 'query message by key finished, but no message.' },
  // SEND_MESSAGE (v1) names the group `producerGroup`, which the validator does not read: no check
  retryV1Raw: OK,
  retryV2Raw: denied(noDefaultPerm(`group:${OTHER_GROUP}`)),
  retryV1Unsigned: denied(NO_ACCESS_KEY),
  // SEND_BATCH_MESSAGE is not in the validator's table: a batch reaches a DENY topic
  batchDenyTopic: OK,
  pullDeniedGroup: denied(noDefaultPerm(`group:${OTHER_GROUP}`)),
  pullDenyTopic: denied(noExplicitPerm(`topic:${DENY_TOPIC}`)),
  heartbeatDeniedGroup: denied(noDefaultPerm(`group:${OTHER_GROUP}`)),
  heartbeatProducerOnly: OK,
  updateOffsetDeniedGroup: denied(noDefaultPerm(`group:${OTHER_GROUP}`)),
  // 4.9.8's header decoding logs a missing mandatory field and goes on, so the ACL lets the request
  // through and the processor fails on the null (the NPE text depends on the JDK)
  updateOffsetMissingField: {
    ok: false,
    code: 1,
    remark:
      /^java\.lang\.NullPointerException\b.*, org\.apache\.rocketmq\.broker\.processor\.ConsumerManageProcessor\.updateConsumerOffset\(ConsumerManageProcessor\.java:\d+\)$/,
  },
  getConsumerListDeniedGroup: denied(noDefaultPerm(`group:${OTHER_GROUP}`)),
  unregisterDeniedGroup: denied(noDefaultPerm(`group:${OTHER_GROUP}`)),
  sendBackDeniedGroup: denied(noDefaultPerm(`group:${OTHER_GROUP}`)),
  // QUERY_CONSUMER_OFFSET is not in the table: any signed account reads any group's offsets
  queryConsumerOffsetNoCheck: OK,
};

/**
 * Where ours answers differently from 4.9.8 by design, and why. Every entry must differ from
 * UPSTREAM_MATRIX (the suite checks that too, so a fixed quirk upstream shows up here).
 */
export const OURS_BY_DESIGN: Readonly<Record<string, { readonly expected: Expected; readonly why: string }>> =
  {
    nonAdminAclVersion: {
      expected: denied(needAdmin(52, ALLOWED.accessKey)),
      why: 'issue 15: every admin request, the ACL ones included, needs an admin account (upstream since 5.3)',
    },
    nonAdminUpdateAclConfig: {
      expected: denied(needAdmin(50, ALLOWED.accessKey)),
      why: 'issue 15: a non-admin account must not create accounts (4.9.8 let it create an admin one)',
    },
    batchDenyTopic: {
      expected: denied(noExplicitPerm(`topic:${DENY_TOPIC}`)),
      why: 'batches are checked as single sends (5.x); 4.9.8 let them reach any topic',
    },
    retryV1Raw: {
      expected: denied(noDefaultPerm(`group:${OTHER_GROUP}`)),
      why: 'a v1 send to %RETRY%<group> needs SUB on the group (5.x checks the topic itself)',
    },
    queryUniqueKeyRaw: {
      expected: OK,
      why: '5.x rule (ISSUE #5310): clients after 4.9.3 sign _UNIQUE_KEY_QUERY, so it is verified',
    },
    queryKeyFlagFalseRaw: {
      expected: { ok: false, code: 22, remark: 'can not find message, maybe time range not correct' },
      why: 'as queryUniqueKeyRaw: the signature holds, the query finds nothing',
    },
    queryUniqueKeyClient: {
      expected: OK,
      why: 'as queryUniqueKeyRaw: the official client finds the message by its unique key',
    },
    updateOffsetMissingField: {
      expected: denied(
        aclRemark(
          'the custom field <queueId> is null',
          'org.apache.rocketmq.acl.plain.PlainAccessValidator.parse(PlainAccessValidator.java:134)',
        ),
      ),
      why: 'a header missing a mandatory field is refused while the ACL reads it (4.9.8 only logs it and its processor throws a NullPointerException)',
    },
  };

/** A remark without its Java stack frame: the text before `, org.apache` (JDKs print frames differently). */
export function remarkHead(remark: string | null | undefined): string | null {
  if (remark === null || remark === undefined) return null;
  const i = remark.indexOf(', org.apache');
  return i < 0 ? remark : remark.slice(0, i);
}

/** Whether `outcome` is the `expected` answer: same code, same remark up to the stack frame. */
export function answersAs(outcome: CaseOutcome | undefined, expected: Expected): boolean {
  if (outcome === undefined) return false;
  if (expected.ok || outcome.ok) return expected.ok === outcome.ok;
  if ((outcome.code ?? null) !== expected.code) return false;
  if (expected.remark instanceof RegExp) return expected.remark.test(outcome.remark ?? '');
  return remarkHead(outcome.remark) === remarkHead(expected.remark);
}

export function describeExpected(expected: Expected): string {
  if (expected.ok) return 'accepted';
  const remark = expected.remark instanceof RegExp ? String(expected.remark) : remarkHead(expected.remark);
  return `code ${expected.code}, remark ${JSON.stringify(remark)}`;
}
