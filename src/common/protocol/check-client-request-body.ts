/**
 * CheckClientRequestBody (CHECK_CLIENT_CONFIG body, `common/.../protocol/body/CheckClientRequestBody.java`):
 * a consumer with a non-TAG subscription asks the broker whether it can filter that way:
 * `{"clientId":..,"group":..,"subscriptionData":{SubscriptionData}}`.
 */
import { stringifyFastjson } from '../fastjson/index.js';
import { BodyReader } from './body-reader.js';
import { readSubscriptionData, type SubscriptionData, subscriptionDataValue } from './subscription-data.js';

export interface CheckClientRequestBody {
  clientId: string | undefined;
  group: string | undefined;
  subscriptionData: SubscriptionData | undefined;
}

export function encodeCheckClientRequestBody(b: CheckClientRequestBody): Buffer {
  return Buffer.from(
    stringifyFastjson({
      clientId: b.clientId,
      group: b.group,
      subscriptionData:
        b.subscriptionData === undefined ? undefined : subscriptionDataValue(b.subscriptionData),
    }),
    'utf8',
  );
}

export function decodeCheckClientRequestBody(body: Buffer | undefined): CheckClientRequestBody {
  const r = BodyReader.parse('CheckClientRequestBody', body);
  const sub = r.optional('subscriptionData');
  return {
    clientId: r.optional('clientId')?.string(),
    group: r.optional('group')?.string(),
    subscriptionData: sub === undefined ? undefined : readSubscriptionData(sub),
  };
}

/** ExpressionType.isTagType: absent, empty or TAG. */
export function isTagType(expressionType: string | undefined): boolean {
  return expressionType === undefined || expressionType === '' || expressionType === 'TAG';
}
