import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AclException } from '../../../../src/common/acl/acl-exception.js';
import {
  expandIP,
  isValidInet4Address,
  isValidInet6Address,
  whiteRemoteAddressOf,
} from '../../../../src/common/acl/inet-address.js';
import { getRemoteAddressStrategy } from '../../../../src/common/acl/remote-address-strategy.js';

function matches(entry: string, address: string): boolean {
  return getRemoteAddressStrategy(entry).match(address);
}

function refusedWith(entry: string, message: string): void {
  assert.throws(
    () => getRemoteAddressStrategy(entry),
    (e: unknown) => e instanceof AclException && e.message === message,
    entry,
  );
}

test('blank never matches; the three wildcards match everything', () => {
  for (const blank of [undefined, '', '   ']) assert.equal(matches(blank as string, '10.0.0.1'), false);
  for (const all of ['*', '*.*.*.*', '*:*:*:*:*:*:*:*']) {
    assert.equal(matches(all, '10.0.0.1'), true);
    assert.equal(matches(all, '::1'), true);
  }
});

test('one address, IPv4 and IPv6 (compared expanded, any case)', () => {
  assert.equal(matches('192.168.0.1', '192.168.0.1'), true);
  assert.equal(matches('192.168.0.1', '192.168.0.10'), false);
  assert.equal(matches('::1', '0:0:0:0:0:0:0:1'), true);
  assert.equal(matches('1050:0:0:0:5:600:300C:326B', '1050::5:600:300c:326b'), true);
});

test('a comma list and the brace form, both families', () => {
  assert.equal(matches('192.168.1.1,192.168.1.2', '192.168.1.2'), true);
  assert.equal(matches('192.168.1.1,192.168.1.2', '192.168.1.3'), false);
  assert.equal(matches('192.168.1.{1,2}', '192.168.1.1'), true);
  assert.equal(matches('192.168.1.{1,2}', '192.168.1.3'), false);
  assert.equal(matches('1050::0005:{600c,600d}', '1050:0:0:0:0:0:5:600d'), true);
  assert.equal(matches('1050::0005:{600c,600d}', '1050:0:0:0:0:0:5:600e'), false);
});

test('ranges: a-b or * in octet 2, 3 or 4; IPv6 ranges in hex', () => {
  assert.equal(matches('192.168.1.1-100', '192.168.1.100'), true);
  assert.equal(matches('192.168.1.1-100', '192.168.1.101'), false);
  assert.equal(matches('192.168.1.1-100', '192.168.2.50'), false);
  assert.equal(matches('10.10.103.*', '10.10.103.7'), true);
  assert.equal(matches('10.10.103.*', '10.10.104.7'), false);
  assert.equal(matches('192.168.*.*', '192.168.200.3'), true);
  assert.equal(matches('192.*.*.*', '192.1.2.3'), true);
  assert.equal(matches('192.*.*.*', '193.1.2.3'), false);
  assert.equal(matches('1050::0005:600c:1-ff', '1050:0:0:0:0:5:600c:00a0'), true);
  assert.equal(matches('1050::0005:600c:1-ff', '1050:0:0:0:0:5:600c:0100'), false);
  assert.equal(matches('1050::0005:*', '1050:0:0:0:0:0:5:abcd'), true);
});

test('refusals carry upstream messages; CIDR is refused', () => {
  refusedWith('192.168.0.0/24', 'Netaddress examine Exception netaddress is 192.168.0.0/24');
  refusedWith('::1/128', 'Netaddress examine Exception netaddress is ::1/128');
  refusedWith('192.168.1.300', 'Netaddress examine Exception netaddress is 192.168.1.300');
  refusedWith('hostname.example', 'Netaddress examine Exception netaddress is hostname.example');
  refusedWith('192.168.1.1, 192.168.1.2', 'Netaddress examine Exception netaddress is  192.168.1.2');
  refusedWith('192.168.1.{1,300}', 'Netaddress examine Exception netaddress is 192.168.1.300');
  refusedWith('192.168.{1,2}', 'MultipleRemoteAddressStrategy has got a/some wrong format IP(s) ');
  refusedWith(
    '192.168.{1,2}.1}',
    'MultipleRemoteAddressStrategy netaddress examine scope Exception netaddress',
  );
  refusedWith(
    '192.168.1.100-1',
    'RangeRemoteAddressStrategy netaddress examine scope Exception start is 100 , end is 1',
  );
  refusedWith(
    '192.168.1.1-256',
    'RangeRemoteAddressStrategy netaddress examine scope Exception start is 1 , end is 256',
  );
  refusedWith('192.168.1.-5', 'RangeRemoteAddressStrategy netaddress examine scope Exception value -5 ');
  refusedWith('1050::*:0005', 'Netaddress examine scope Exception netaddress is 1050::*:0005');
});

test('address checks follow commons-validator; the port and brackets are removed', () => {
  assert.equal(isValidInet4Address('1.2.3.4'), true);
  assert.equal(isValidInet4Address('01.2.3.4'), false);
  assert.equal(isValidInet6Address('::ffff:1.2.3.4'), true);
  assert.equal(isValidInet6Address('1::2::3'), false);
  assert.equal(expandIP('::1', 8), '0000:0000:0000:0000:0000:0000:0000:0001');
  assert.equal(whiteRemoteAddressOf('127.0.0.1:5555'), '127.0.0.1');
  assert.equal(whiteRemoteAddressOf('[::1]:5555'), '::1');
});
