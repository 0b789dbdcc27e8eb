/** java.util.Properties text as Properties.load reads it and MixAll.properties2String writes it. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import { formatJavaProperties, parseJavaProperties } from '../../../src/common/java-properties.js';

const parse = (text: string) => Object.fromEntries(parseJavaProperties(text));

describe('parseJavaProperties (Properties.load)', () => {
  test('separators: =, :, blanks, and blanks around them', () => {
    assert.deepEqual(parse('a=1\nb:2\nc 3\nd = 4\ne\t:\t5\nf  =  = 6\ng\nh=\n'), {
      a: '1',
      b: '2',
      c: '3',
      d: '4',
      e: '5',
      f: '= 6',
      g: '',
      h: '',
    });
  });

  test('comments, blank lines, leading blanks and all three line ends', () => {
    assert.deepEqual(parse('# comment\n! also\n\n   \n  key=value\r\nx=1\ry=2'), {
      key: 'value',
      x: '1',
      y: '2',
    });
    assert.deepEqual(parse('a=#not a comment\n'), { a: '#not a comment' });
  });

  test('continuation lines join with the next line, minus its leading blanks', () => {
    assert.deepEqual(parse('list=a,\\\n    b,\\\r\n\tc\nnext=1'), { list: 'a,b,c', next: '1' });
    assert.deepEqual(parse('even=a\\\\\nodd=b'), { even: 'a\\', odd: 'b' });
    assert.deepEqual(parse('end=a\\'), { end: 'a' });
  });

  test('escapes in keys and values', () => {
    assert.deepEqual(parse('a\\=b=c\\td\\u0041\\z\nsp\\ ace=1'), { 'a=b': 'c\tdAz', 'sp ace': '1' });
    assert.deepEqual(parse('n=line1\\nline2\\r\\f'), { n: 'line1\nline2\r\f' });
  });

  test('a later key wins; a malformed \\u is refused as Java refuses it', () => {
    assert.deepEqual(parse('k=1\nk=2'), { k: '2' });
    assert.throws(() => parseJavaProperties('k=\\u12'), RemotingCommandError);
    assert.throws(() => parseJavaProperties('k=\\uXYZW'), /Malformed \\uxxxx encoding/);
  });

  test('empty input', () => {
    assert.deepEqual(parse(''), {});
    assert.deepEqual(parse('\n\n# only comments\n'), {});
  });
});

describe('formatJavaProperties (MixAll.properties2String)', () => {
  test('key=value lines, nothing escaped, and they parse back', () => {
    const entries: Array<[string, string]> = [
      ['listenPort', '9876'],
      ['kvConfigPath', '/tmp/a b/kvConfig.json'],
    ];
    const text = formatJavaProperties(entries);
    assert.equal(text, 'listenPort=9876\nkvConfigPath=/tmp/a b/kvConfig.json\n');
    assert.deepEqual([...parseJavaProperties(text)], entries);
  });
});
