import { BlockList, isIP } from 'node:net';

/**
 * Where a delivery may go (server-side request forgery, Standard Webhooks "Server side request
 * forgery"): never to an address of the IANA special-purpose registries (private networks, loopback,
 * link-local with the cloud's metadata service at 169.254.169.254, carrier-grade NAT, documentation,
 * multicast, NAT64 and 6to4 which lead into IPv4 ones), checked on the addresses the name resolves
 * to, right before the connection is made to one of exactly those addresses.
 */
const SPECIAL_V4: readonly [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
const SPECIAL_V6: readonly [string, number][] = [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['3fff::', 20],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];

const special = new BlockList();
for (const [net, prefix] of SPECIAL_V4) special.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of SPECIAL_V6) special.addSubnet(net, prefix, 'ipv6');

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) as the IPv4 address it is; others unchanged. */
function unmapped(address: string): { readonly address: string; readonly family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1]!, family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/** Whether the address is a loopback one (127.0.0.0/8, ::1). */
export function isLoopback(address: string): boolean {
  const a = unmapped(address);
  return loopback.check(a.address, a.family);
}

/**
 * Why a delivery must not go to `address`, or undefined when it may. `allowLoopback`: the local
 * server's deliveries to a receiver on the same machine.
 */
export function refusalOf(address: string, allowLoopback: boolean): string | undefined {
  if (isIP(address) === 0) return `${address} is not an IP address`;
  const a = unmapped(address);
  if (allowLoopback && loopback.check(a.address, a.family)) return undefined;
  if (special.check(a.address, a.family))
    return `${address} is a private, loopback, link-local or otherwise special-purpose address`;
  return undefined;
}
