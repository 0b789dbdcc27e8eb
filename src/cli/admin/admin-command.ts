/**
 * `rmq admin <command>`: mqadmin's sub commands, names, options and output, on the admin API.
 * `rmq admin` and `rmq admin --help` list the commands as `mqadmin --help` does; `rmq admin help
 * <cmd>` and `<cmd> -h` print a command's options. A bad command line exits 2 with a usage line, a
 * failed call exits 1 with one line naming what failed.
 */
import type { CliIO } from '../io.js';
import {
  clusterAclConfigVersion,
  deleteAclConfig,
  updateAclConfig,
  updateGlobalWhiteAddr,
} from './acl-commands.js';
import { brokerStatus, clusterList, getBrokerConfig, updateBrokerConfig } from './broker-commands.js';
import { type AdminCommand, adminFactory, commandClientOptions } from './command.js';
import { consumerStatus } from './consumer-status-command.js';
import {
  consumerConnection,
  consumerProgress,
  deleteSubGroup,
  producerConnection,
  setConsumeMode,
  updateSubGroup,
} from './group-commands.js';
import { cleanExpiredCQ, cleanUnusedTopic } from './maintenance-commands.js';
import { queryMsgById, queryMsgByKey, queryMsgByUniqueKey } from './message-commands.js';
import {
  addWritePerm,
  deleteKvConfig,
  getNamesrvConfig,
  updateKvConfig,
  wipeWritePerm,
} from './namesrv-commands.js';
import { brokerConsumeStats, cloneGroupOffset, resetOffsetByTime } from './offset-commands.js';
import { AdminUsageError, COMMON_OPTIONS, JSON_OPTION, optionsHelp, parseOptions } from './options.js';
import { consumeMessage, printMsg, queryMsgByOffset } from './pull-commands.js';
import { queryCq } from './queue-commands.js';
import { sendMessage } from './send-commands.js';
import { statsAll } from './stats-commands.js';
import {
  deleteTopic,
  topicClusterList,
  topicList,
  topicRoute,
  topicStatus,
  updateTopic,
} from './topic-commands.js';

/** In mqadmin's help order. */
export const ADMIN_COMMANDS: readonly AdminCommand[] = [
  updateTopic,
  deleteTopic,
  updateSubGroup,
  setConsumeMode,
  deleteSubGroup,
  updateBrokerConfig,
  topicRoute,
  topicStatus,
  topicClusterList,
  brokerStatus,
  queryMsgById,
  queryMsgByKey,
  queryMsgByUniqueKey,
  queryMsgByOffset,
  printMsg,
  brokerConsumeStats,
  producerConnection,
  consumerConnection,
  consumerProgress,
  consumerStatus,
  cloneGroupOffset,
  clusterList,
  topicList,
  updateKvConfig,
  deleteKvConfig,
  wipeWritePerm,
  addWritePerm,
  resetOffsetByTime,
  cleanExpiredCQ,
  cleanUnusedTopic,
  statsAll,
  getNamesrvConfig,
  getBrokerConfig,
  queryCq,
  sendMessage,
  consumeMessage,
  updateAclConfig,
  deleteAclConfig,
  clusterAclConfigVersion,
  updateGlobalWhiteAddr,
];

const BY_NAME = new Map(ADMIN_COMMANDS.map((c) => [c.name, c]));

export function findAdminCommand(name: string): AdminCommand | undefined {
  return BY_NAME.get(name);
}

export function adminHelp(): string {
  const lines = ADMIN_COMMANDS.map((c) => `   ${c.name.padEnd(20)} ${c.desc}\n`).join('');
  return (
    `Usage: rmq admin <command> [options]   (also: rmq <command> [options])\n\n` +
    `The most commonly used mqadmin commands are:\n${lines}\n` +
    `See 'rmq admin help <command>' for more information on a specific command.\n`
  );
}

function allOptions(command: AdminCommand) {
  return [...COMMON_OPTIONS, ...(command.read ? [JSON_OPTION] : []), ...command.options];
}

export function commandHelp(command: AdminCommand): string {
  return `${command.desc}\n${optionsHelp(command.name, allOptions(command))}`;
}

/** Runs one admin command line (argv after `admin`); returns the exit code. */
export async function adminFromArgs(
  argv: readonly string[],
  io: CliIO,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help') {
    io.out(adminHelp());
    return 0;
  }
  if (name === 'help') {
    const target = rest[0] === undefined ? undefined : findAdminCommand(rest[0]);
    if (rest[0] === undefined) {
      io.out(adminHelp());
      return 0;
    }
    if (target === undefined) {
      io.err(`rmq admin: unknown command "${rest[0]}"\n${adminHelp()}`);
      return 2;
    }
    io.out(commandHelp(target));
    return 0;
  }
  const command = findAdminCommand(name);
  if (command === undefined) {
    io.err(`rmq admin: unknown command "${name}"\n${adminHelp()}`);
    return 2;
  }
  let exitCode = 0;
  let factory: ReturnType<typeof adminFactory> | undefined;
  try {
    const opts = parseOptions(rest, allOptions(command));
    if (opts.has('help')) {
      io.out(commandHelp(command));
      return 0;
    }
    factory = adminFactory(opts, env);
    await command.run({
      opts,
      json: opts.has('json'),
      io,
      admin: factory.admin,
      clientOptions: () => commandClientOptions(opts, env),
      setExitCode: (code) => {
        exitCode = code;
      },
    });
    return exitCode;
  } catch (error) {
    if (error instanceof AdminUsageError) {
      io.err(
        `rmq admin ${command.name}: ${error.message}\n${optionsHelp(command.name, allOptions(command)).split('\n')[0]}\n`,
      );
      return 2;
    }
    io.err(`rmq admin ${command.name}: ${describeError(error)}\n`);
    return 1;
  } finally {
    await factory?.close();
  }
}

/** One line: the error's message and, when it has one, its cause's. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause =
    error.cause instanceof Error && !error.message.includes(error.cause.message)
      ? ` (${error.cause.message})`
      : '';
  return `${error.message}${cause}`.replace(/\s*\n\s*/g, ' ');
}
