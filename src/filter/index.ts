/**
 * Public API of the filter layer: subscriptions, tag, SQL92 and named filtering, the broker's message
 * filters.
 */

export {
  buildConsumerFilterData,
  ConsumerFilterData,
  ConsumerFilterManager,
  type ConsumerFilterManagerOptions,
  DEFAULT_FILTER_DATA_CLEAN_TIME_SPAN,
} from './consumer-filter-manager.js';
export {
  FilterCompileError,
  FilterEvaluationError,
  type SqlErrorKind,
  SqlParseError,
  SUBSCRIPTION_PARSE_FAILED,
} from './errors.js';
export {
  type BuildSubscriptionOptions,
  build,
  buildSubscriptionData,
  FilterAPI,
  isTagMatched,
  isTagType,
} from './filter-api.js';
export {
  type CompiledFilterExpression,
  DEFAULT_FILTER_CACHE_SIZE,
  type FilterCompileFunction,
  FilterFactory,
  type FilterFactoryOptions,
  type NamedFilterLookup,
} from './filter-factory.js';
export {
  type ConsumerFilterLookup,
  ExpressionForRetryMessageFilter,
  ExpressionMessageFilter,
  type FilterDataLike,
  type MessageFilter,
  readRecordProperties,
} from './message-filter.js';
export { filterExpressionType, isNamedType, NAMED_EXPRESSION_TYPE } from './named-expression.js';
export {
  DEFAULT_NAMED_FILTER_MAX_TIMEOUTS,
  DEFAULT_NAMED_FILTER_TIMEOUT_MILLIS,
  describeFilterName,
  NamedFilterExpression,
  type NamedFilterFailure,
  type NamedFilterFunction,
  type NamedFilterMessage,
  NamedFilterRegistry,
  type NamedFilterRegistryOptions,
  namedFilterMessage,
  namedFiltersFromModule,
} from './named-filter.js';
export type {
  BetweenNode,
  BooleanCastNode,
  BooleanNode,
  ComparisonNode,
  ComparisonOperator,
  ConstantNode,
  InNode,
  IsNullNode,
  LogicNode,
  NegateNode,
  NotNode,
  PropertyNode,
  SqlNode,
  SqlValue,
} from './sql/ast.js';
export { SqlDouble } from './sql/ast.js';
export type { EvaluationContext } from './sql/evaluate.js';
export {
  DEFAULT_SQL_MAX_DEPTH,
  DEFAULT_SQL_MAX_LENGTH,
  parseSqlSelector,
  type SqlParseOptions,
} from './sql/parser.js';
export { printSqlNode } from './sql/print.js';
export { parseSql92, SqlExpression } from './sql/sql-expression.js';
