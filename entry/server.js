// Written by scripts/entries.mjs from build/src/server.js: do not edit.
import { load } from './load.js';

export const {
  BrokerController, FilterCompileError, FilterEvaluationError, HttpPortInUseError,
  NamesrvController, SegmentFileError, SqlParseError, StoreCorruptionError, StoreIOError,
  createBroker, createNamesrv, loadBrokerConfig, startEmbedded, startStandalone,
} = await load('server.js');
