import { defineHeader, type HeaderOf, onWire, opt, prim, req } from '../header-schema.js';
import { HEADER_PACKAGE, RPC_REQUEST_HEADER_FIELDS } from './packages.js';

/**
 * SEND_MESSAGE_V2 (310), SEND_BATCH_MESSAGE (320) and SEND_REPLY_MESSAGE_V2 (325) request:
 * SendMessageRequestHeader under one-letter keys. FastCodesHeader. The broker picks the batch path
 * from `m` (batch), not from the code. `n` carries the broker name; the inherited `bname` is never set
 * by Java clients and its fast decoder ignores it.
 */
export const SendMessageRequestHeaderV2 = defineHeader({
  name: 'SendMessageRequestHeaderV2',
  javaClass: `${HEADER_PACKAGE}.SendMessageRequestHeaderV2`,
  fields: {
    producerGroup: onWire('a', req('string')),
    topic: onWire('b', req('string')),
    defaultTopic: onWire('c', req('string')),
    defaultTopicQueueNums: onWire('d', req('int')),
    queueId: onWire('e', req('int')),
    sysFlag: onWire('f', req('int')),
    bornTimestamp: onWire('g', req('long')),
    flag: onWire('h', req('int')),
    properties: onWire('i', opt('string')),
    reconsumeTimes: onWire('j', opt('int')),
    unitMode: onWire('k', prim('boolean')),
    maxReconsumeTimes: onWire('l', opt('int')),
    batch: onWire('m', prim('boolean')),
    brokerName: onWire('n', opt('string')),
    ...RPC_REQUEST_HEADER_FIELDS,
  },
  fastCodes: [
    'producerGroup',
    'topic',
    'defaultTopic',
    'defaultTopicQueueNums',
    'queueId',
    'sysFlag',
    'bornTimestamp',
    'flag',
    'properties',
    'reconsumeTimes',
    'unitMode',
    'maxReconsumeTimes',
    'batch',
    'brokerName',
  ],
});

export type SendMessageRequestHeaderV2 = HeaderOf<typeof SendMessageRequestHeaderV2>;
