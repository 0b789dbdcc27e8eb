/**
 * mqadmin's ACL commands: updateAclConfig, deleteAclConfig, clusterAclConfigVersion,
 * updateGlobalWhiteAddr. The brokers must run with aclEnable and this tool with an admin account
 * (tools.yml or --access-key/--secret-key). Secrets are never printed.
 */
import type { MQAdminExt } from '../../admin/mq-admin-ext.js';
import type { PlainAccessConfig } from '../../common/acl/plain-access-config.js';
import { type AdminCommand, clusterMasterAddrs } from './command.js';
import { formatDate, left, toJson } from './format.js';
import { AdminUsageError, type OptionValues } from './options.js';

async function targets(opts: OptionValues, a: MQAdminExt): Promise<{ addrs: string[]; byCluster: boolean }> {
  const brokerAddr = opts.text('brokerAddr');
  const clusterName = opts.text('clusterName');
  if ((brokerAddr === undefined) === (clusterName === undefined))
    throw new AdminUsageError('give exactly one of -b and -c');
  return brokerAddr !== undefined
    ? { addrs: [brokerAddr], byCluster: false }
    : { addrs: await clusterMasterAddrs(a, clusterName as string), byCluster: true };
}

/** What updateAclConfig prints of the account: everything but the secret. */
export function accessConfigString(c: PlainAccessConfig): string {
  const { secretKey: _secret, ...shown } = c;
  return `PlainAccessConfig ${JSON.stringify(shown)}`;
}

export const updateAclConfig: AdminCommand = {
  name: 'updateAclConfig',
  desc: 'Update acl config yaml file in broker',
  read: false,
  options: [
    { short: 'b', long: 'brokerAddr', arg: true, desc: 'update acl config file to which broker' },
    { short: 'c', long: 'clusterName', arg: true, desc: 'update acl config file to which cluster' },
    { short: 'a', long: 'accessKey', arg: true, required: true, desc: 'set accessKey in acl config file' },
    { short: 's', long: 'secretKey', arg: true, required: true, desc: 'set secretKey in acl config file' },
    {
      short: 'w',
      long: 'whiteRemoteAddress',
      arg: true,
      desc: 'set white ip Address for account in acl config file',
    },
    { short: 'i', long: 'defaultTopicPerm', arg: true, desc: 'set default topicPerm in acl config file' },
    { short: 'u', long: 'defaultGroupPerm', arg: true, desc: 'set default GroupPerm in acl config file' },
    { short: 't', long: 'topicPerms', arg: true, desc: 'set topicPerms list,eg: topicA=DENY,topicD=SUB' },
    { short: 'g', long: 'groupPerms', arg: true, desc: 'set groupPerms list,eg: groupD=DENY,groupD=SUB' },
    { short: 'm', long: 'admin', arg: true, desc: 'set admin flag in acl config file' },
  ],
  async run({ opts, io, admin }) {
    const config: PlainAccessConfig & { accessKey: string } = { accessKey: opts.required('accessKey') };
    config.secretKey = opts.required('secretKey');
    if (opts.has('admin')) config.admin = opts.bool('admin', false);
    const set = (long: 'defaultTopicPerm' | 'defaultGroupPerm' | 'whiteRemoteAddress') => {
      const v = opts.text(long);
      if (v !== undefined) config[long] = v;
    };
    set('defaultTopicPerm');
    set('defaultGroupPerm');
    set('whiteRemoteAddress');
    const topicPerms = opts.text('topicPerms');
    if (topicPerms !== undefined) config.topicPerms = topicPerms.split(',');
    const groupPerms = opts.text('groupPerms');
    if (groupPerms !== undefined) config.groupPerms = groupPerms.split(',');
    const a = await admin();
    const { addrs } = await targets(opts, a);
    for (const addr of addrs) {
      await a.createAndUpdatePlainAccessConfig(addr, config);
      io.out(`create or update plain access config to ${addr} success.\n`);
    }
    io.out(accessConfigString(config));
  },
};

export const deleteAclConfig: AdminCommand = {
  name: 'deleteAclConfig',
  desc: 'Delete Acl Config Account in broker',
  read: false,
  options: [
    { short: 'b', long: 'brokerAddr', arg: true, desc: 'delete acl config account from which broker' },
    { short: 'c', long: 'clusterName', arg: true, desc: 'delete acl config account from which cluster' },
    {
      short: 'a',
      long: 'accessKey',
      arg: true,
      required: true,
      desc: 'set accessKey in acl config file for deleting which account',
    },
  ],
  async run({ opts, io, admin }) {
    const accessKey = opts.required('accessKey');
    const a = await admin();
    const { addrs } = await targets(opts, a);
    for (const addr of addrs) {
      await a.deletePlainAccessConfig(addr, accessKey);
      io.out(`delete plain access config account from ${addr} success.\n`);
    }
    io.out(`account's accesskey is:${accessKey}`);
  },
};

export const clusterAclConfigVersion: AdminCommand = {
  name: 'clusterAclConfigVersion',
  desc: 'List all of acl config version information in cluster',
  read: true,
  options: [
    { short: 'b', long: 'brokerAddr', arg: true, desc: 'query acl config version for which broker' },
    { short: 'c', long: 'clusterName', arg: true, desc: 'query acl config version for specified cluster' },
  ],
  async run({ opts, io, json, admin }) {
    const a = await admin();
    const { addrs, byCluster } = await targets(opts, a);
    const rows: Array<{
      clusterName: string;
      brokerName: string;
      brokerAddr: string;
      aclFilePath: string;
      counter: bigint;
      timestamp: bigint;
    }> = [];
    for (const addr of addrs) {
      const info = await a.examineBrokerClusterAclVersionInfo(addr);
      for (const [path, v] of info.allAclConfigDataVersion) {
        rows.push({
          clusterName: info.clusterName,
          brokerName: info.brokerName,
          brokerAddr: info.brokerAddr,
          aclFilePath: path,
          counter: v.counter,
          timestamp: v.timestamp,
        });
      }
    }
    if (json) {
      io.out(toJson(rows));
      return;
    }
    const line = (c: readonly unknown[]) =>
      `${left(c[0], 16)}  ${left(c[1], 22)}  ${left(c[2], 22)}  ${left(c[3], 20)}  ${left(c[4], 22)}  ${left(c[5], 22)}\n`;
    // As upstream: the header only for a cluster; the success line after the rows.
    if (byCluster) {
      io.out(
        line([
          '#Cluster Name',
          '#Broker Name',
          '#Broker Addr',
          '#AclFilePath',
          '#AclConfigVersionNum',
          '#AclLastUpdateTime',
        ]),
      );
    }
    for (const r of rows)
      io.out(
        line([r.clusterName, r.brokerName, r.brokerAddr, r.aclFilePath, r.counter, formatDate(r.timestamp)]),
      );
    io.out(
      byCluster
        ? "get cluster's plain access config version success.\n"
        : "get broker's plain access config version success.\n",
    );
  },
};

export const updateGlobalWhiteAddr: AdminCommand = {
  name: 'updateGlobalWhiteAddr',
  desc: 'Update global white address for acl Config File in broker',
  read: false,
  options: [
    { short: 'b', long: 'brokerAddr', arg: true, desc: 'update global white address to which broker' },
    { short: 'c', long: 'clusterName', arg: true, desc: 'update global white address to which cluster' },
    {
      short: 'g',
      long: 'globalWhiteRemoteAddresses',
      arg: true,
      required: true,
      desc: 'set globalWhiteRemoteAddress list,eg: 10.10.103.*,192.168.0.*',
    },
    {
      short: 'p',
      long: 'aclFileFullPath',
      arg: true,
      desc: 'update global white address of specified acl file,eg: /xxx/plain_test.yml',
    },
  ],
  async run({ opts, io, admin }) {
    const addresses = opts.required('globalWhiteRemoteAddresses');
    const file = opts.text('aclFileFullPath');
    const a = await admin();
    const { addrs } = await targets(opts, a);
    for (const addr of addrs) {
      await a.updateGlobalWhiteAddrConfig(addr, addresses, file);
      io.out(`update global white remote addresses to ${addr} success.\n`);
    }
  },
};
