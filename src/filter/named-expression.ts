/**
 * The NAMED expression type: a subscription naming a filter function the broker's operator registered
 * (rocketmq-ts's replacement for upstream's class filter, which ran code the client uploaded). Kept in
 * a file of its own so every part of the filter layer can ask "which filter does this subscription
 * use" without importing the registry.
 */
import type { SubscriptionData } from '../common/protocol/subscription-data.js';

/** SubscriptionData.expressionType of a named filter; subString is the filter's name. */
export const NAMED_EXPRESSION_TYPE = 'NAMED';

/**
 * The expression type the broker filters a subscription by. Upstream's class-filter flag
 * (classFilterMode = true, subString = a class name) means "filter with this named filter", whatever
 * the expression type says: upstream's client sends TAG there, and no class is ever run here.
 */
export function filterExpressionType(
  subscription: Pick<SubscriptionData, 'expressionType' | 'classFilterMode'>,
): string {
  return subscription.classFilterMode ? NAMED_EXPRESSION_TYPE : subscription.expressionType;
}

export function isNamedType(expressionType: string | undefined): boolean {
  return expressionType === NAMED_EXPRESSION_TYPE;
}
