/** mqadmin's name server commands: updateKvConfig, deleteKvConfig, getNamesrvConfig, wipeWritePerm, addWritePerm. */
import type { AdminCommand } from './command.js';
import { left, toJson } from './format.js';

const NAMESPACE_KEY = [
  { short: 's', long: 'namespace', arg: true, required: true, desc: 'set the namespace' },
  { short: 'k', long: 'key', arg: true, required: true, desc: 'set the key name' },
] as const;

export const updateKvConfig: AdminCommand = {
  name: 'updateKvConfig',
  desc: 'Create or update KV config.',
  read: false,
  options: [
    ...NAMESPACE_KEY,
    { short: 'v', long: 'value', arg: true, required: true, desc: 'set the key value' },
  ],
  async run({ opts, io, admin }) {
    await (await admin()).createAndUpdateKvConfig(
      opts.required('namespace'),
      opts.required('key'),
      opts.required('value'),
    );
    io.out('create or update kv config to namespace success.\n');
  },
};

export const deleteKvConfig: AdminCommand = {
  name: 'deleteKvConfig',
  desc: 'Delete KV config.',
  read: false,
  options: NAMESPACE_KEY,
  async run({ opts, io, admin }) {
    await (await admin()).deleteKvConfig(opts.required('namespace'), opts.required('key'));
    io.out('delete kv config from namespace success.\n');
  },
};

export const getNamesrvConfig: AdminCommand = {
  name: 'getNamesrvConfig',
  desc: 'Get configs of name server.',
  read: true,
  options: [],
  async run({ io, json, admin }) {
    const configs = await (await admin()).getNameServerConfig();
    if (json) {
      io.out(toJson(configs));
      return;
    }
    for (const [addr, config] of configs) {
      io.out(`============${addr}============\n`);
      for (const [k, v] of config) io.out(`${left(k, 50)}=  ${v}\n`);
    }
  },
};

function writePermCommand(name: string, desc: string, verb: 'wipe' | 'add'): AdminCommand {
  return {
    name,
    desc,
    read: false,
    options: [{ short: 'b', long: 'brokerName', arg: true, required: true, desc: 'broker name' }],
    async run({ opts, io, admin, setExitCode }) {
      const brokerName = opts.required('brokerName');
      const a = await admin();
      let failed = false;
      for (const namesrv of a.getNameServerAddressList()) {
        try {
          const count =
            verb === 'wipe'
              ? await a.wipeWritePermOfBroker(namesrv, brokerName)
              : await a.addWritePermOfBroker(namesrv, brokerName);
          io.out(`${verb} write perm of broker[${brokerName}] in name server[${namesrv}] OK, ${count}\n`);
        } catch (error) {
          failed = true;
          io.out(`${verb} write perm of broker[${brokerName}] in name server[${namesrv}] Failed\n`);
          io.err(`${(error as Error).message}\n`);
        }
      }
      // Upstream exits 0 either way; a script deserves to know one name server refused.
      if (failed) setExitCode(1);
    },
  };
}

export const wipeWritePerm = writePermCommand(
  'wipeWritePerm',
  'Wipe write perm of broker in all name server you defined in the -n param',
  'wipe',
);
export const addWritePerm = writePermCommand(
  'addWritePerm',
  'Add write perm of broker in all name server you defined in the -n param',
  'add',
);
