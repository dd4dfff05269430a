/** The webhook target classifier (lib/domain/ip-address.ts): only a public unicast address is a receiver. */
import { describe, expect, it } from 'vitest';
import { type AddressKind, classifyAddress, isIpAddress } from '../../lib/domain/ip-address.js';

const CASES: [string, AddressKind][] = [
  // IPv4
  ['8.8.8.8', 'public'],
  ['93.184.216.34', 'public'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['100.63.255.255', 'public'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['100.128.0.0', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.0.9', 'loopback'],
  ['169.254.169.254', 'link_local'],
  ['169.254.0.1', 'link_local'],
  ['172.15.255.255', 'public'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.0', 'public'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['192.168.1.1', 'private'],
  ['192.169.0.1', 'public'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['198.20.0.0', 'public'],
  ['192.88.99.1', 'reserved'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  // IPv6
  ['2606:4700::1111', 'public'],
  ['2a00:1450:4001:80b::200e', 'public'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['[::ffff:169.254.169.254]', 'link_local'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:8.8.8.8', 'public'],
  ['64:ff9b::a9fe:a9fe', 'link_local'], // NAT64 of 169.254.169.254
  ['64:ff9b::808:808', 'public'],
  ['2002:7f00:1::', 'loopback'], // 6to4 of 127.0.0.1
  ['2002:808:808::1', 'public'],
  ['fc00::1', 'unique_local'],
  ['fd00:ec2::254', 'unique_local'],
  ['fe80::1', 'link_local'],
  ['fe80::1%eth0', 'link_local'],
  ['febf::1', 'link_local'],
  ['fec0::1', 'private'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'], // Teredo
  ['::127.0.0.1', 'reserved'], // IPv4-compatible (deprecated)
  ['100::1', 'reserved'], // discard
  ['4000::1', 'reserved'], // outside global unicast
  ['2001:db8:1:2:3:4::5', 'reserved'], // '::' standing for one group
  ['::2', 'reserved'], // IPv4-compatible, not loopback
  // Only ::ffff:0:0/96 maps an IPv4 address: not with another prefix, nor with only one of its bytes.
  ['2606:4700::ffff:7f00:1', 'public'],
  ['::ff:7f00:1', 'reserved'],
  ['::ff00:7f00:1', 'reserved'],
  // Not addresses
  ['localhost', 'not_an_address'],
  ['hooks.example.com', 'not_an_address'],
  ['256.1.1.1', 'not_an_address'],
  ['1.2.3', 'not_an_address'],
  ['01.2.3.4', 'not_an_address'],
  ['1::2::3', 'not_an_address'],
  ['1:2:3:4:5:6:7:8:9', 'not_an_address'],
  ['1:2:3:4:5:6:7', 'not_an_address'],
  ['12345::', 'not_an_address'],
  ['1.2.3.4:1::', 'not_an_address'], // a dotted IPv4 is only the last part
  ['', 'not_an_address'],
  ['1:2:3:4::5:6:7:8', 'not_an_address'], // '::' stands for at least one group
  // Brackets only as a pair around the whole address.
  ['[::1', 'not_an_address'],
  ['::1]', 'not_an_address'],
  ['x::1]', 'not_an_address'],
  ['[::1x', 'not_an_address'],
];

describe('classifyAddress', () => {
  it.each(CASES)('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });
});

describe('isIpAddress', () => {
  it.each([
    ['8.8.8.8', true],
    ['10.0.0.1', true],
    ['::1', true],
    ['[2606:4700::1111]', true],
    ['hooks.example.com', false],
    ['1.2.3', false],
    ['', false],
  ])('%s: %s', (text, expected) => {
    expect(isIpAddress(text)).toBe(expected);
  });
});
