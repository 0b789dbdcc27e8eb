/**
 * What an application names as `(topic, expression)` (upstream's subExpression string or its
 * MessageSelector) turned into the SubscriptionData heartbeats and pulls carry (upstream
 * FilterAPI.build). Push subscribe, lite subscribe and the pull consumer's pulls go through here so
 * they accept and refuse the same expressions; each message names the call that was refused.
 */
import { ValidationError } from '../../common/errors.js';
import { ExpressionType, type SubscriptionData } from '../../common/protocol/subscription-data.js';
import { checkTopic } from '../../common/validators.js';
import { build as buildSubscription } from '../../filter/filter-api.js';
import { errorText } from '../errors.js';

/** What `subscribe` and `pull` take: `*`, `TagA || TagB`, or a typed expression (SQL92, NAMED). */
export type SubscriptionExpression =
  | string
  | { readonly type: 'TAG' | 'SQL92' | 'NAMED'; readonly expression: string };

/** An expression whose type and text passed checkSubscriptionExpression. */
export interface CheckedExpression {
  readonly type: 'TAG' | 'SQL92' | 'NAMED';
  readonly text: string;
}

/**
 * The expression's type and text (a plain string is a TAG expression), or a ValidationError
 * starting with `call`: JavaScript callers can hand in anything.
 */
export function checkSubscriptionExpression(
  call: string,
  expression: SubscriptionExpression,
): CheckedExpression {
  const [type, text] =
    typeof expression === 'string'
      ? ([ExpressionType.TAG, expression] as const)
      : ([expression?.type, expression?.expression] as const);
  if (type !== 'TAG' && type !== 'SQL92' && type !== 'NAMED') {
    throw new ValidationError(
      `${call}: expression type must be TAG, SQL92 or NAMED, got ${String(type)}`,
      -1,
    );
  }
  if (typeof text !== 'string') throw new ValidationError(`${call}: expression must be a string`, -1);
  return { type, text };
}

/**
 * The subscription of `wireTopic` (the topic with the namespace); a text the filter refuses is a
 * ValidationError naming `call` and the application's `topic`.
 */
export function buildSubscriptionData(
  call: string,
  topic: string,
  wireTopic: string,
  expression: CheckedExpression,
  subVersion: bigint,
): SubscriptionData {
  // The producer's topic rules (upstream's consumers check none: a bad name only failed at the broker).
  checkTopic(topic);
  if (wireTopic !== topic) checkTopic(wireTopic);
  try {
    return buildSubscription(wireTopic, expression.text, expression.type, { subVersion });
  } catch (error) {
    throw new ValidationError(`${call} ${topic}: ${errorText(error)}`, -1, { cause: error });
  }
}

/** checkSubscriptionExpression, then buildSubscriptionData, for callers with nothing to do between. */
export function subscriptionDataOf(
  call: string,
  topic: string,
  wireTopic: string,
  expression: SubscriptionExpression,
  subVersion: bigint,
): SubscriptionData {
  return buildSubscriptionData(
    call,
    topic,
    wireTopic,
    checkSubscriptionExpression(call, expression),
    subVersion,
  );
}
