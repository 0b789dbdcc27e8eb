export { quoteFastjsonString } from './escape.js';
export { formatJavaDouble } from './java-double.js';
export {
  JAVA_INTEGER_KEY,
  JAVA_LONG_KEY,
  JAVA_STRING_KEY,
  type JavaHashMapOptions,
  type JavaKeyType,
  javaHashMapIterationOrder,
  javaHashMapOrder,
  javaIntegerHashCode,
  javaLongHashCode,
} from './java-hash-map.js';
export { FastjsonSyntaxError, type ParseFastjsonOptions, parseFastjson } from './parse.js';
export { type StringifyFastjsonOptions, stringifyFastjson } from './stringify.js';
export {
  type FastjsonRecord,
  type FastjsonValue,
  type FjEmittable,
  type FjEmittableRecord,
  FjMap,
  FjSet,
  fjEquals,
  JavaDouble,
  javaDouble,
  javaSet,
} from './values.js';
